/** Latency samples for the `retrieval` observer (a ring of the last 1024 per operation). */
export class OpStats {
  count = 0;
  errors = 0;
  empty = 0;
  expansions = 0;
  private ring: number[] = [];
  record(ms: number, hits: number, expansions = 0) {
    this.count++;
    if (hits === 0) this.empty++;
    this.expansions += expansions;
    this.ring.push(ms);
    if (this.ring.length > 1024) this.ring.shift();
  }
  pct(p: number): string {
    if (!this.ring.length) return '-';
    const s = [...this.ring].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!.toFixed(1);
  }
}
