/**
 * The console's places, in the location's hash: `#/groups`, `#/groups/<id>` and a group's pages
 * (`#/groups/<id>/agents?status=revoked`): a page's filters are in its query, so a link opens it
 * filtered and the back button goes back to the filters before.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  parts: string[];
  query: URLSearchParams;
}

const parse = (): Route => {
  const [path = '', search = ''] = location.hash.replace(/^#\/?/, '').split('?');
  return {
    parts: path.split('/').filter(Boolean).map(decodeURIComponent),
    query: new URLSearchParams(search),
  };
};

export function useRoute(): Route {
  const [route, setRoute] = useState(parse);
  useEffect(() => {
    const update = () => setRoute(parse());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** A group's pages, in the order of its tabs. */
export const GROUP_PAGES = {
  overview: 'Overview',
  agents: 'Agents',
  'allow-list': 'Allow-list',
  inbox: 'Inbox',
  log: 'Log',
  webhooks: 'Webhooks',
  policy: 'Policy',
  guard: 'Guard',
  members: 'Members',
  audit: 'Audit',
} as const;
export type GroupPage = keyof typeof GROUP_PAGES;

/** The link to a group's page, with its query (empty values left out). */
export function groupHref(group: string, page: GroupPage = 'overview', query: Record<string, string> = {}) {
  const base = `#/groups/${encodeURIComponent(group)}${page === 'overview' ? '' : `/${page}`}`;
  const q = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== '')).toString();
  return q ? `${base}?${q}` : base;
}
