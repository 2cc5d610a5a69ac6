/**
 * Run ids such as `r20261121-020000-1a2b3c`: sortable by start time, unique without a round
 * trip. Pure, so both workflow code (with its deterministic clock and uuid4) and the CLI use it.
 */
export function formatRunId(startedAt: Date, randomHex: string): string {
  const stamp = startedAt.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `r${stamp}-${randomHex.slice(0, 6)}`;
}
