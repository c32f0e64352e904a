/**
 * A Markdown table a document carries between two markers, generated from a catalogue in code (the
 * errors, the event kinds). `npm run docs:tables` rewrites them; a test per catalogue keeps each equal.
 */
export function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Replaces the table between `<!-- <name>:start … -->` and `<!-- <name>:end -->` in a document's text. */
export function withGeneratedTable(doc: string, name: string, table: string): string {
  const startMarker = `<!-- ${name}:start`;
  const endMarker = `<!-- ${name}:end -->`;
  const start = doc.indexOf(startMarker);
  const startEnd = doc.indexOf('-->', start);
  const end = doc.indexOf(endMarker);
  if (start < 0 || end < startEnd) throw new Error(`the document has lost its ${name} markers`);
  return `${doc.slice(0, startEnd + 3)}\n${table}\n${doc.slice(end)}`;
}
