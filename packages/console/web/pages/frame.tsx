/**
 * What every page of a group shares: the group as the service answers it (its agents and allow-list,
 * each agent's use of its limits now), the token registry (every amount is shown with its token's
 * symbol), the names addresses are known by, the signed-in wallet's role in it, and the frame around a
 * page (its title, the group's kill switch or its frozen banner, and its tabs). A wallet that may not
 * read the group sees why, and no control.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { api, ok, Refusal, type Schemas } from '../api';
import { GROUP_PAGES, groupHref, type GroupPage } from '../route';
import { session } from '../session';
import { Failure, Loading, short, useLoad, type Load, type Names } from '../ui';
import { GroupFreeze } from './freeze';
import { useGroupEvents } from './live';

export type GroupView = Schemas['GroupResponse'];
export type Agent = GroupView['agents'][number];
export type Entry = GroupView['whitelist'][number];
export type Usage = Schemas['GroupUsageResponse']['agents'][number];
export type Token = Schemas['TokensResponse']['tokens'][number];
/** The signed-in wallet's role in a group: `admin` changes it, `approver` decides held spends, `viewer` reads. */
export type Role = Schemas['GroupListResponse']['groups'][number]['role'];

let registry: Promise<Token[]> | undefined;
/** The token registry (GET /tokens), read once a page load. */
export const tokens = (): Promise<Token[]> =>
  (registry ??= ok(api.GET('/tokens')).then(
    (a) => a.tokens,
    (err: unknown) => {
      registry = undefined;
      throw err;
    },
  ));

/** A mint's symbol (its short address when the registry does not know it). */
export const symbolOf = (list: readonly Token[] | undefined, mint: string): string =>
  list?.find((t) => t.mint === mint)?.symbol ?? short(mint);

let rolesRead: { wallet: string; roles: Promise<Map<string, Role>> } | undefined;
/**
 * The signed-in wallet's role in each of its groups (GET /orchestrator/groups answers each with it),
 * read once for the pages of this page load, and again when the team changes (reloadRole).
 */
export const rolesOf = (): Promise<Map<string, Role>> => {
  const wallet = session()?.wallet ?? '';
  if (rolesRead?.wallet !== wallet)
    rolesRead = {
      wallet,
      roles: ok(api.GET('/orchestrator/groups')).then(
        (a) => new Map(a.groups.map((g) => [g.group_config_pda, g.role])),
        (err: unknown) => {
          rolesRead = undefined;
          throw err;
        },
      ),
    };
  return rolesRead.roles;
};

export interface GroupData {
  id: string;
  view: GroupView;
  usage: Map<string, Usage>;
  names: Names;
  /** The base token's symbol: limits, budgets and values are in it. */
  base: string;
  /** The signed-in wallet's role in the group (undefined until read). */
  role: Role | undefined;
  /** Whether it is an admin: it sees the controls that change the group (freeze, sign, cancel). */
  admin: boolean;
  symbol(mint: string): string;
  reload(): void;
  /** Reads the wallet's role again (the team changed). */
  reloadRole(): void;
}

/** The names a person knows the group's addresses by. */
export function namesOf(view: GroupView | undefined): Names {
  const names: Names = {};
  for (const e of view?.whitelist ?? []) if (e.label) names[e.address] = e.label;
  for (const a of view?.agents ?? []) if (a.label) names[a.agent_wallet_pda] = a.label;
  const me = session()?.wallet;
  if (me) names[me] = 'you';
  return names;
}

function useGroupData(group: string): { load: Load<GroupView>; data?: GroupData } {
  const path = { params: { path: { group } } };
  const view = useLoad(() => ok(api.GET('/orchestrator/groups/{group}', path)), [group]);
  const usage = useLoad(() => ok(api.GET('/orchestrator/groups/{group}/usage', path)), [group]);
  const list = useLoad(tokens);
  const roles = useLoad(() => rolesOf(), [group]);
  const role = roles.data?.get(group);
  const names = useMemo(() => namesOf(view.data), [view.data]);
  const byAgent = useMemo(
    () => new Map((usage.data?.agents ?? []).map((u) => [u.agent_wallet_pda, u])),
    [usage.data],
  );
  if (!view.data) return { load: view };
  const symbol = (mint: string) => symbolOf(list.data, mint);
  return {
    load: view,
    data: {
      id: group,
      view: view.data,
      usage: byAgent,
      names,
      base: symbol(view.data.base_mint),
      symbol,
      role,
      admin: role === 'admin',
      reload: () => {
        view.reload();
        usage.reload();
      },
      reloadRole: () => {
        rolesRead = undefined;
        roles.reload();
      },
    },
  };
}

/** Calls `reload` once a burst of the group's events matching `types` is over (a spend is several). */
export function useReloadOn(group: string, types: RegExp, reload: () => void) {
  const later = useRef<ReturnType<typeof setTimeout>>();
  const told = useRef(reload);
  told.current = reload;
  useEffect(() => () => clearTimeout(later.current), []);
  return useGroupEvents(group, (e) => {
    if (!types.test(e.type)) return;
    clearTimeout(later.current);
    later.current = setTimeout(() => told.current(), 250);
  });
}

/** Why a wallet cannot see the group, in words; undefined for other failures. */
function refusedGroup(err: unknown, group: string): string | undefined {
  if (!(err instanceof Refusal)) return undefined;
  if (err.code === 'forbidden')
    return `The wallet you signed in with is not a member of group ${short(group)}: sign in with the wallet of that group.`;
  if (err.code === 'not_found' || err.code === 'validation_error')
    return `There is no group ${short(group)}: check the link, or pick one of your groups.`;
  return undefined;
}

export function GroupTabs({ group, current }: { group: string; current: GroupPage }) {
  return (
    <nav aria-label="Group" class="tabs">
      <a href="#/groups">All groups</a>
      {(Object.keys(GROUP_PAGES) as GroupPage[]).map((page) => (
        <a key={page} href={groupHref(group, page)} aria-current={page === current ? 'page' : undefined}>
          {GROUP_PAGES[page]}
        </a>
      ))}
    </nav>
  );
}

/**
 * A page of a group: its title and tabs, then `children` once the group is read. A wallet that may
 * not read it gets a plain sentence and nothing to act on.
 */
export function GroupFrame({
  group,
  page,
  children,
}: {
  group: string;
  page: GroupPage;
  children: (data: GroupData) => ComponentChildren;
}) {
  const { load, data } = useGroupData(group);
  const refused = load.error !== undefined && !data ? refusedGroup(load.error, group) : undefined;
  useEffect(() => {
    document.title = `${GROUP_PAGES[page]} · group ${short(group)} · Operator console`;
  }, [group, page]);
  if (refused)
    return (
      <section class="card narrow" aria-label="No access">
        <h1>Group {short(group)}</h1>
        <p role="alert">{refused}</p>
        <p>
          <a href="#/groups">Your groups</a>
        </p>
      </section>
    );
  return (
    <>
      <h1>
        {GROUP_PAGES[page]} <span class="muted">· group</span>{' '}
        <span class="mono" title={group}>
          {short(group)}
        </span>
      </h1>
      {data && <GroupFreeze d={data} />}
      <GroupTabs group={group} current={page} />
      {!data && load.loading && <Loading what="the group" />}
      {!data && !load.loading && <Failure error={load.error} />}
      {data && children(data)}
    </>
  );
}

/** How events and amounts of the group are worded: names for addresses, symbols for mints. */
export const wordingOf = (d: GroupData) => ({
  name: (address: string) => d.names[address] ?? short(address),
  symbol: d.symbol,
  base: d.base,
});
