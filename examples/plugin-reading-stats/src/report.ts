/** The reading report as markdown (served by the stats route and written by the report task). */
export interface Stats {
  user: string;
  total_reads: number;
  distinct_files: number;
  misses: number;
  files: Array<{ uri: string; reads: number; last_read_at: string }>;
}

export function markdownReport(s: Stats): string {
  const lines = [
    `# Reading report for ${s.user}`,
    '',
    `${s.total_reads} reads of ${s.distinct_files} files; ${s.misses} refused or missing.`,
    '',
    '| file | reads | last read |',
    '|---|---|---|',
    ...s.files.map((f) => `| ${f.uri} | ${f.reads} | ${f.last_read_at} |`),
  ];
  return lines.join('\n') + '\n';
}
