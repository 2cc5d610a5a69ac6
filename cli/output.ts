/** Prints JSON for machines (`--json`) or text for people; one place so every verb behaves alike. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A plain aligned table; no colours, so logs stay readable. */
export function printTable(rows: Record<string, unknown>[], columns?: string[]): void {
  if (!rows.length) {
    console.log('(none)');
    return;
  }
  const names = columns ?? Object.keys(rows[0]);
  const text = rows.map((row) => names.map((name) => (row[name] === null || row[name] === undefined ? '' : String(row[name]))));
  const widths = names.map((name, i) => Math.max(name.length, ...text.map((cells) => cells[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd();
  console.log(line(names));
  for (const cells of text) console.log(line(cells));
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  return seconds < 120 ? `${seconds.toFixed(1)} s` : `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}
