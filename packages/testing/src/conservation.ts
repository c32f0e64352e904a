/**
 * Money conservation, read from the chain: per mint, the supply the mint account records (every unit
 * minted, less every unit burned) equals the sum of the token accounts of every holder there is. The
 * holders are the fixed ones (the treasury, the fee payer, the mint authority, each local pool's
 * authority, the lending venue's authority), and every address the log names (agents, allow-listed
 * recipients, operators, emergency-withdrawal destinations), plus any a test adds.
 *
 * A unit paid twice, minted out of nothing, or sent somewhere no one accounts for shows as a
 * difference. Embedded, the chain is the world's own and the difference must be zero. On the
 * topology the chain node is shared by every suite of the run (and an earlier suite may have paid an
 * address no log names), so the difference is taken when the books are opened and must not change:
 * nothing the suite did created or lost a unit. Suites that run at the same time as one that airdrops
 * to an address no log names would disturb that; the topology project runs its suites one at a time
 * on these machines.
 *
 * Reads are a snapshot: on the topology, one JSON-RPC getMultipleAccounts, which the chain node
 * answers between two transactions; embedded, the reads of an idle suite. The holders are read from
 * the log before and after the snapshot, and again if a new one appeared in between.
 *
 * The books also reconcile: for every group the suite made (on the topology, those that did not
 * exist when the books were opened, and the world's own), `tokenops audit reconcile` (reconcile.ts)
 * must find nothing: each agent's balances on the chain are what its events imply, and nothing left
 * its wallet that the log does not name. What the log learns after the chain (a payment the watcher
 * records at its next pass) is waited for, up to RECONCILE_WAIT_MS.
 */
import bs58 from 'bs58';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ata,
  decodeEvent,
  logPages,
  reconcileAgents,
  type Discrepancy,
  type LogPosition,
  type RecordedEvent,
} from '@tokenops/shared';
import { localFixtures, localPoolKeys } from '@tokenops/shared/adapters';
import type { Service, World } from './harness';
import { settled } from './log';

/** SPL Token Mint: mint_authority COption<Pubkey> (4 + 32 bytes), then supply u64 LE. */
const MINT_SUPPLY_OFFSET = 36;
/** SPL Token Account: mint (32), owner (32), amount u64 LE. */
const ACCOUNT_AMOUNT_OFFSET = 64;
/** Fields of events that name an address which may hold tokens. */
const ADDRESS_FIELDS = ['agent_id', 'address', 'destination', 'owner_wallet', 'counterparty', 'to'];

/** Per token symbol: the supply on chain, what the holders hold, and the difference (supply − held). */
export type Books = Record<string, { supply: bigint; held: bigint; unheld: bigint }>;

/**
 * What the log has named so far: every address that may hold tokens on the service's chain, and every
 * group with the agents invited into it. It reads the log once, then only what was appended since
 * (each test's check would otherwise read the whole shared log of the topology, which every suite of
 * the run grows, three times).
 */
class Named {
  readonly holders: Set<string>;
  readonly groups = new Map<string, string[]>();
  readonly accounts: TokenAccounts;
  private position: LogPosition | undefined;

  constructor(private readonly service: Service) {
    this.accounts = new TokenAccounts(service.folder);
    const { chain } = service.ctx;
    const fixtures = localFixtures(service.seed);
    this.holders = new Set([
      chain.treasury,
      chain.feePayer,
      fixtures.authority.address,
      fixtures.venue.authority.address,
      ...localPoolKeys(chain.tokens, service.seed).map((p) => p.authority.address),
    ]);
  }

  /** Reads what was appended since the last call (with all that committed before this one: log.ts). */
  async catchUp(): Promise<this> {
    await settled(this.service.sql);
    const from = this.position;
    for await (const page of logPages(this.service.ctx.store, { ...(from && { from }), pageSize: 5_000 })) {
      for (const recorded of page) this.learn(recorded);
      this.position = page.at(-1)?.position ?? this.position;
    }
    return this;
  }

  private learn(recorded: RecordedEvent): void {
    const data = recorded.data as Record<string, unknown>;
    for (const field of ADDRESS_FIELDS) {
      const value = data[field];
      if (typeof value === 'string' && value.length >= 32 && value.length <= 44) this.holders.add(value);
    }
    const e = decodeEvent(recorded);
    if (e?.type === 'group.created') this.groups.set(e.data.group_id, this.groups.get(e.data.group_id) ?? []);
    if (e?.type === 'agent.invited')
      this.groups.set(e.data.group_id, [...(this.groups.get(e.data.group_id) ?? []), e.data.agent_id]);
  }
}

interface RawAccount {
  data: Uint8Array;
}

/** The accounts at these addresses, read together (one JSON-RPC call on the topology). */
async function readAccounts(service: Service, addresses: string[]): Promise<(RawAccount | undefined)[]> {
  if (!service.rpcUrl) return Promise.all(addresses.map((a) => service.ctx.chain.readAccount(a)));
  const res = await fetch(service.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'getMultipleAccounts',
      params: [addresses, { encoding: 'base64' }],
    }),
  });
  const body = (await res.json()) as {
    result?: { value: ({ data: [string, string] } | null)[] };
    error?: unknown;
  };
  if (!body.result) throw new Error(`getMultipleAccounts: ${JSON.stringify(body.error)}`);
  return body.result.value.map((v) =>
    v ? { data: new Uint8Array(Buffer.from(v.data[0], 'base64')) } : undefined,
  );
}

/**
 * Associated token accounts, derived once each. A derivation costs about a millisecond (an on-curve
 * check in BigInt arithmetic), and the books of a late suite on the topology name over a thousand
 * holders (the audit query suite's refused transfers each name a recipient), each with three mints:
 * derived again by every suite (Jest gives each suite its own modules), opening the books took 7 to
 * 12 s a suite. On the topology the derivations are also kept in a file of its folder, for the run's
 * later suites (which the topology project runs one at a time).
 */
class TokenAccounts {
  private readonly known = new Map<string, string>();
  private readonly file: string | undefined;
  private unsaved = '';

  constructor(folder: string | undefined) {
    this.file = folder && join(folder, 'token-accounts.txt');
    if (this.file && existsSync(this.file))
      for (const line of readFileSync(this.file, 'utf8').split('\n')) {
        const [owner, mint, address] = line.split(' ');
        if (owner && mint && address) this.known.set(`${owner}:${mint}`, address);
      }
  }

  async of(owner: string, mint: string): Promise<string> {
    const key = `${owner}:${mint}`;
    let address = this.known.get(key);
    if (!address) {
      this.known.set(key, (address = await ata(owner, mint)));
      this.unsaved += `${owner} ${mint} ${address}\n`;
    }
    return address;
  }

  /** Keeps what was derived since the last call for the run's later suites. */
  save(): void {
    if (this.file && this.unsaved) appendFileSync(this.file, this.unsaved);
    this.unsaved = '';
  }
}

async function snapshot(service: Service, accounts: TokenAccounts, holders: Set<string>): Promise<Books> {
  const tokens = service.ctx.chain.tokens;
  const owners = [...holders];
  const owned = await Promise.all(
    tokens.flatMap((t) =>
      owners.map(async (owner) => ({ mint: t.mint, owner, address: await accounts.of(owner, t.mint) })),
    ),
  );
  accounts.save();
  const read = await readAccounts(service, [...tokens.map((t) => t.mint), ...owned.map((a) => a.address)]);
  const books: Books = {};
  tokens.forEach((t, i) => {
    const mint = read[i];
    if (!mint) throw new Error(`the mint of ${t.symbol} is not on the chain`);
    const supply = Buffer.from(mint.data).readBigUInt64LE(MINT_SUPPLY_OFFSET);
    books[t.symbol] = { supply, held: 0n, unheld: supply };
  });
  owned.forEach((a, i) => {
    const account = read[tokens.length + i];
    if (!account) return;
    const data = Buffer.from(account.data);
    const token = tokens.find((t) => t.mint === a.mint)!;
    // An associated token account holds its own mint, for its own owner.
    if (Buffer.compare(data.subarray(0, 32), Buffer.from(bs58.decode(a.mint))) !== 0)
      throw new Error(`the account ${a.address} is not of ${token.symbol}`);
    const amount = data.readBigUInt64LE(ACCOUNT_AMOUNT_OFFSET);
    const entry = books[token.symbol]!;
    entry.held += amount;
    entry.unheld -= amount;
  });
  return books;
}

/** Per mint, the supply and what every holder holds, as one snapshot with no holder missing. */
async function readBooks(service: Service, named: Named, extra: Iterable<string>): Promise<Books> {
  const more = [...extra];
  const holders = () => new Set([...named.holders, ...more]);
  let read = holders();
  for (let attempt = 0; ; attempt++) {
    const books = await snapshot(service, named.accounts, read);
    await named.catchUp();
    const after = holders();
    if ([...after].every((h) => read.has(h)) || attempt >= 5) return books;
    read = after;
  }
}

/** How long the reconciliation waits for the log to catch up with the chain (the payment watcher's passes). */
const RECONCILE_WAIT_MS = 10_000;

/** What reconciling every group but `skip` finds, by group (only those with findings). */
async function reconcileAll(service: Service, named: Named, skip: ReadonlySet<string>) {
  await named.catchUp();
  const found: Record<string, Discrepancy[]> = {};
  for (const [group, agents] of named.groups) {
    if (skip.has(group)) continue;
    const { discrepancies } = await reconcileAgents(service.ctx, group, agents);
    if (discrepancies.length > 0) found[group] = discrepancies;
  }
  return found;
}

const unheld = (books: Books) =>
  Object.fromEntries(Object.entries(books).map(([symbol, b]) => [symbol, b.unheld]));

/**
 * Opens the books of a world: call `expectBalanced()` after each test. On a chain of the world's own
 * (embedded, or a topology started for one suite: `ownChain`), every unit of every mint must be held
 * by a known holder; on the shared topology, the part no known holder holds must not move. Either
 * way, reconciling each group the suite made finds nothing.
 */
export async function openBooks(
  world: Pick<World, 'service'> & Partial<Pick<World, 'groupId'>>,
  options: { ownChain?: boolean; extra?: () => Iterable<string> } = {},
): Promise<{ expectBalanced(): Promise<Books> }> {
  const service = world.service;
  const extra = options.extra ?? (() => []);
  const zero = Object.fromEntries(service.ctx.chain.tokens.map((t) => [t.symbol, 0n]));
  const shared = service.rpcUrl !== undefined && !options.ownChain;
  const named = await new Named(service).catchUp();
  const baseline = shared ? unheld(await readBooks(service, named, extra())) : zero;
  // Groups of other suites on a shared log are theirs to reconcile.
  const others = new Set(service.rpcUrl !== undefined ? named.groups.keys() : []);
  if (world.groupId) others.delete(world.groupId);
  return {
    async expectBalanced() {
      await named.catchUp();
      const books = await readBooks(service, named, extra());
      expect(unheld(books)).toEqual(baseline);
      let found = await reconcileAll(service, named, others);
      for (
        const until = Date.now() + RECONCILE_WAIT_MS;
        Object.keys(found).length > 0 && Date.now() < until;
      ) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        found = await reconcileAll(service, named, others);
      }
      expect(found).toEqual({});
      return books;
    },
  };
}
