/**
 * Small statistics for paired, interleaved benchmark rounds (bench/metrics*.ts): medians,
 * quantiles and a percentile-bootstrap interval of the median, with a seeded generator so a
 * rerun over the same numbers prints the same interval.
 */

/** A seeded uniform generator in [0, 1) (mulberry32). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffle<T>(xs: readonly T[], random: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Linear-interpolated quantile (q in [0, 1]). */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

export const median = (xs: readonly number[]) => quantile(xs, 0.5);

/** The 2.5% and 97.5% percentiles of the median over `n` resamples (with replacement) of `xs`. */
export function bootstrapMedian(xs: readonly number[], n: number, random: () => number): [number, number] {
  const meds: number[] = [];
  const sample = new Array<number>(xs.length);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < xs.length; k++) sample[k] = xs[Math.floor(random() * xs.length)]!;
    meds.push(median(sample));
  }
  return [quantile(meds, 0.025), quantile(meds, 0.975)];
}

/**
 * The 2.5% and 97.5% percentiles of the pooled median under a two-level bootstrap: resample the
 * clusters (server processes started together), then the rounds within each. Rounds of one set
 * of processes share that set's luck (JIT decisions, memory layout), so resampling rounds alone
 * would claim more certainty than the number of process sets allows.
 */
export function clusterBootstrapMedian(clusters: readonly (readonly number[])[], n: number, random: () => number): [number, number] {
  const meds: number[] = [];
  for (let i = 0; i < n; i++) {
    const sample: number[] = [];
    for (let c = 0; c < clusters.length; c++) {
      const xs = clusters[Math.floor(random() * clusters.length)]!;
      for (let k = 0; k < xs.length; k++) sample.push(xs[Math.floor(random() * xs.length)]!);
    }
    meds.push(median(sample));
  }
  return [quantile(meds, 0.025), quantile(meds, 0.975)];
}
