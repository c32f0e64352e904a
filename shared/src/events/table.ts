import { markdownTable, withGeneratedTable } from '../docs/generated-table';
import { EVENT_CATALOGUE, EVENT_KINDS } from './catalogue';

/** The catalogue as the Markdown table that docs/events.md carries. */
export function eventTableMarkdown(): string {
  return markdownTable(
    ['event', 'origin', 'meaning', 'payload fields', 'derived from (log event)'],
    EVENT_KINDS.map((kind) => {
      const row = EVENT_CATALOGUE[kind];
      const fields = ['event', 'event_id', ...row.fields].map((f) => `\`${f}\``).join(', ');
      return [`\`${kind}\``, row.origin, row.meaning, fields, `\`${row.from}\``];
    }),
  );
}

/** Replaces the generated table in docs/events.md's text. */
export const withEventTable = (doc: string): string =>
  withGeneratedTable(doc, 'event-table', eventTableMarkdown());
