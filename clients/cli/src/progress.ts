/** A one-line progress display on stderr, only when stderr is a TTY (scripts and pipes see nothing). */
export interface Progress {
  update(text: string, fraction?: number): void;
  done(text?: string): void;
}

export function progress(enabled = Boolean(process.stderr.isTTY) && !process.env.CI): Progress {
  let last = 0;
  let shown = false;
  const render = (text: string, fraction?: number) => {
    const cols = process.stderr.columns || 80;
    let bar = '';
    if (fraction !== undefined && Number.isFinite(fraction)) {
      const w = 24;
      const filled = Math.max(0, Math.min(w, Math.round(fraction * w)));
      bar = `[${'#'.repeat(filled)}${'-'.repeat(w - filled)}] ${Math.round(fraction * 100)}% `;
    }
    process.stderr.write(`\r\u001b[2K${(bar + text).slice(0, cols - 1)}`);
    shown = true;
  };
  return {
    update(text, fraction) {
      if (!enabled) return;
      const now = Date.now();
      if (now - last < 80 && fraction !== 1) return;
      last = now;
      render(text, fraction);
    },
    done(text) {
      if (!enabled) return;
      if (text) render(text, undefined);
      if (shown) process.stderr.write('\n');
      shown = false;
    },
  };
}
