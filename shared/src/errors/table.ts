import { markdownTable, withGeneratedTable } from '../docs/generated-table';
import { ERROR_CATALOGUE, ERROR_CODES } from './catalogue';

/** The catalogue as the Markdown table that docs/errors.md carries. */
export function errorTableMarkdown(): string {
  return markdownTable(
    ['code', 'HTTP status', 'origin', 'message', 'why an extension (service codes)'],
    ERROR_CODES.map((code) => {
      const e: { status: number; origin: string; message: string; why?: string } = ERROR_CATALOGUE[code];
      return [`\`${code}\``, String(e.status), e.origin, e.message, e.why ?? ''];
    }),
  );
}

/** Replaces the generated table in docs/errors.md's text. */
export const withErrorTable = (doc: string): string =>
  withGeneratedTable(doc, 'error-table', errorTableMarkdown());
