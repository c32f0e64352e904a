/**
 * Tables. `Table` is a plain one (its heads, its rows) in a region that scrolls sideways on a narrow
 * screen and is reached by Tab. `DataTable` holds many rows (500 agents, 5,000 allow-list entries):
 * a search, filters and sortable columns over all of them, and one page of them drawn at a time, so
 * filtering stays fast whatever the count. Its search, filter and sort can start from a link
 * (`initial`): the overview's tiles open it filtered.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useMemo, useState } from 'preact/hooks';

export const Table = ({
  heads,
  label,
  caption = false,
  children,
}: {
  heads: ComponentChildren[];
  label: string;
  caption?: boolean;
  children: ComponentChildren;
}) => (
  <div class="scroll" role="region" aria-label={label} tabIndex={0}>
    <table>
      {caption && <caption>{label}</caption>}
      <thead>
        <tr>
          {heads.map((head, i) => (
            <th key={i} scope="col">
              {head}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  </div>
);

export interface Column<R> {
  key: string;
  head: string;
  cell(row: R): ComponentChildren;
  /** What the column sorts by; a column without it does not sort. */
  sort?(row: R): string | number;
  /** The head is read by a screen reader only (an actions column). */
  hiddenHead?: boolean;
}

export interface Filter<R> {
  name: string;
  label: string;
  options: { value: string; label: string; test(row: R): boolean }[];
}

export interface TableState {
  q?: string;
  sort?: string;
  dir?: 'asc' | 'desc';
  /** Filter name: the value chosen. */
  filters?: Record<string, string>;
}

const PAGE = 50;
const NO_FILTERS: never[] = [];

export function DataTable<R>({
  label,
  rows,
  columns,
  rowKey,
  search,
  filters = NO_FILTERS,
  initial = {},
  empty,
  testId,
}: {
  label: string;
  rows: readonly R[];
  columns: Column<R>[];
  rowKey(row: R): string;
  /** The text the search box looks in (labels, addresses). */
  search(row: R): string;
  /** Keep the same array while its tests do not change (useMemo): the table filters again when it changes. */
  filters?: Filter<R>[];
  initial?: TableState;
  empty: string;
  testId?: string;
}) {
  const id = useId();
  const [q, setQ] = useState(initial.q ?? '');
  const [chosen, setChosen] = useState<Record<string, string>>(initial.filters ?? {});
  const [sort, setSort] = useState<{ key?: string; dir: 'asc' | 'desc' }>({
    ...(initial.sort !== undefined && { key: initial.sort }),
    dir: initial.dir ?? 'asc',
  });
  const [page, setPage] = useState(0);
  useEffect(() => setPage(0), [q, chosen, sort, rows.length]);

  // The search text of each row, lower case, once per set of rows (not at each key stroke).
  const haystacks = useMemo(() => rows.map((r) => search(r).toLowerCase()), [rows]);
  const shown = useMemo(() => {
    const needle = q.trim().toLowerCase();
    const tests = filters.flatMap((f) => {
      const option = f.options.find((o) => o.value === chosen[f.name]);
      return option ? [option.test] : [];
    });
    const kept: number[] = [];
    for (let i = 0; i < rows.length; i++) {
      if (needle && !haystacks[i]!.includes(needle)) continue;
      if (tests.every((t) => t(rows[i]!))) kept.push(i);
    }
    const column = columns.find((c) => c.key === sort.key);
    if (column?.sort) {
      const keys = new Map(kept.map((i) => [i, column.sort!(rows[i]!)]));
      const sign = sort.dir === 'asc' ? 1 : -1;
      kept.sort((a, b) => {
        const x = keys.get(a)!;
        const y = keys.get(b)!;
        return (x < y ? -1 : x > y ? 1 : 0) * sign;
      });
    }
    return kept.map((i) => rows[i]!);
  }, [rows, haystacks, q, chosen, sort, filters]);

  const counts = useMemo(
    () => filters.map((f) => f.options.map((o) => rows.filter(o.test).length)),
    [rows, filters],
  );

  const pages = Math.max(1, Math.ceil(shown.length / PAGE));
  const at = Math.min(page, pages - 1);
  const slice = shown.slice(at * PAGE, at * PAGE + PAGE);
  const sortBy = (key: string) =>
    setSort((s) => ({ key, dir: s.key === key && s.dir === 'asc' ? 'desc' : 'asc' }));

  return (
    <div class="datatable" data-testid={testId}>
      <div class="row controls" role="search" aria-label={`${label}: search and filters`}>
        <div class="field">
          <label for={`${id}-q`}>Search</label>
          <input
            id={`${id}-q`}
            type="search"
            value={q}
            placeholder="label or address"
            onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        {filters.map((f, fi) => (
          <div class="field" key={f.name}>
            <label for={`${id}-${f.name}`}>{f.label}</label>
            <select
              id={`${id}-${f.name}`}
              value={chosen[f.name] ?? ''}
              onChange={(e) =>
                setChosen({ ...chosen, [f.name]: (e.currentTarget as HTMLSelectElement).value })
              }
            >
              <option value="">all</option>
              {f.options.map((o, oi) => (
                <option key={o.value} value={o.value}>
                  {o.label} ({counts[fi]![oi]})
                </option>
              ))}
            </select>
          </div>
        ))}
      </div>
      <p class="muted count" role="status" data-testid={testId && `${testId}-count`}>
        {shown.length === rows.length ? `${rows.length} in all` : `${shown.length} of ${rows.length} match`}
        {pages > 1 && `; showing ${at * PAGE + 1}–${at * PAGE + slice.length}`}
      </p>
      {shown.length === 0 ? (
        <p>{rows.length === 0 ? empty : 'Nothing matches: change the search or the filters.'}</p>
      ) : (
        <div class="scroll" role="region" aria-label={label} tabIndex={0}>
          <table>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th
                    key={c.key}
                    scope="col"
                    aria-sort={
                      sort.key === c.key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined
                    }
                  >
                    {c.hiddenHead ? (
                      <span class="visually-hidden">{c.head}</span>
                    ) : c.sort ? (
                      <button type="button" class="sort" onClick={() => sortBy(c.key)}>
                        {c.head}
                        <span aria-hidden="true">
                          {sort.key === c.key ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ' ↕'}
                        </span>
                      </button>
                    ) : (
                      c.head
                    )}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {slice.map((r) => (
                <tr key={rowKey(r)}>
                  {columns.map((c) => (
                    <td key={c.key}>{c.cell(r)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav class="actions pager" aria-label={`${label}: pages`}>
          <button type="button" class="secondary" disabled={at === 0} onClick={() => setPage(at - 1)}>
            Previous
          </button>
          <span class="muted">
            page {at + 1} of {pages}
          </span>
          <button type="button" class="secondary" disabled={at >= pages - 1} onClick={() => setPage(at + 1)}>
            Next
          </button>
        </nav>
      )}
    </div>
  );
}
