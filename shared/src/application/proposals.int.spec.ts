/**
 * Proposals decided once, on the real PostgreSQL log, by two service instances (two contexts, each
 * with its own connections and caches, one log) whose clock the test moves: a signature racing the
 * expiry, two schedulers executing the same due proposal, a cancel racing the scheduler's execution.
 * Each race is run many times; whatever wins, the log holds one end for the proposal and its change
 * at most once.
 */
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { generateSigner, type Signer } from '../chain/keys';
import { LiteSvmChain } from '../chain/litesvm';
import { PostgresEventStore } from '../event-store/postgres';
import { settingsFor } from '../process/settings';
import { serverSql } from '../sql/sql';
import { streams } from '../domain/events';
import { DATABASE_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import { createContext, type Context } from './context';
import { KeyVault } from './credentials';
import { createGroup } from './groups';
import { cancelProposal, enactAs, propose, signProposal, tendProposals } from './proposals';
import { ServiceError } from '../errors';

const SEED = 'proposals-race';
const schema = uniqueName('proposals');
const stores: PostgresEventStore[] = [];
const vault = new KeyVault(randomBytes(32));
/** The instances' one clock, moved by the tests. */
let clock = Date.UTC(2026, 11, 3, 12);
let chain: LiteSvmChain;
let a: Context;
let b: Context;
let admin: Signer;
let groupId: string;

const instance = async () => {
  const store = await PostgresEventStore.open(
    await serverSql({ connectionString: DATABASE_URL, schema, max: 4 }),
  );
  stores.push(store);
  return createContext({
    store,
    chain,
    vault,
    settings: settingsFor({ kind: 'local', seed: SEED }),
    now: () => clock,
  });
};

beforeAll(async () => {
  chain = await LiteSvmChain.open({ seed: SEED });
  a = await instance();
  b = await instance();
  admin = generateSigner();
  groupId = (await createGroup(a, admin.address)).group_config_pda;
});
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await dropSchema(schema);
});

const signatureOf = (message: string) => bs58.encode(admin.sign(Buffer.from(message, 'utf8')));
/** An allow-list proposal of a new address: its id and message. */
const proposal = () =>
  propose(a, admin.address, groupId, 'allow_list.add', {
    address: generateSigner().address,
    type: 1,
    approved_amount: '10',
    ttl_seconds: 3_600,
  });
/** What the log holds of a proposal: its closing events, and the changes it made. */
async function recorded(proposalId: string) {
  const log = await a.store.readStream(streams.proposals(groupId));
  const group = await a.store.readStream(streams.group(groupId));
  const of = (e: { data: unknown }) => (e.data as { proposal_id?: string }).proposal_id === proposalId;
  return {
    ends: log
      .filter((e) => of(e) && ['executed', 'expired', 'cancelled', 'failed'].some((t) => e.type.endsWith(t)))
      .map((e) => e.type),
    changes: group.filter(of).map((e) => e.type),
  };
}
const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value }),
    (err: unknown) => {
      if (!(err instanceof ServiceError)) throw err;
      return { refused: err.code };
    },
  );

it('a signature racing the expiry: expired, once, and nothing changes; a moment before, it executes', async () => {
  for (let round = 0; round < 8; round++) {
    const p = await proposal();
    clock = Date.parse(p.expires_at) + round; // at its end, or just past it
    const [signed] = await Promise.all([
      settle(signProposal(a, admin.address, p.proposal_id, signatureOf(p.message))),
      tendProposals(b, groupId),
    ]);
    expect(signed).toEqual({ refused: 'conflict' });
    expect(await recorded(p.proposal_id)).toEqual({ ends: ['governance.expired'], changes: [] });
  }
  const last = await proposal();
  clock = Date.parse(last.expires_at) - 1;
  const [signed] = await Promise.all([
    signProposal(a, admin.address, last.proposal_id, signatureOf(last.message)),
    tendProposals(b, groupId),
  ]);
  expect(signed.status).toBe('executed');
  expect(await recorded(last.proposal_id)).toEqual({
    ends: ['governance.executed'],
    changes: ['whitelist.entry_added'],
  });
});

it('on a store that appends one stream at a time, a change whose stream moved after its execution was recorded is made still, once', async () => {
  const c = await instance();
  delete (c.store as { appendAtomically?: unknown }).appendAtomically;
  const append = c.store.append.bind(c.store);
  const auditor = generateSigner().address;
  let between = true;
  // Another flow's event lands on the group's stream right after the execution's record.
  c.store.append = async (stream, events, expected) => {
    const landed = await append(stream, events, expected);
    if (between && events.some((e) => e.type === 'governance.executed')) {
      between = false;
      await append(
        streams.group(groupId),
        [{ type: 'auditor.granted', data: { group_id: groupId, wallet: auditor, at: clock } }],
        'any',
      );
    }
    return landed;
  };
  const p = await propose(c, admin.address, groupId, 'allow_list.add', {
    address: generateSigner().address,
    type: 1,
    approved_amount: '10',
    ttl_seconds: 3_600,
  });
  const signed = await signProposal(c, admin.address, p.proposal_id, signatureOf(p.message));
  expect(signed.status).toBe('executed');
  expect(between).toBe(false);
  expect(await recorded(p.proposal_id)).toEqual({
    ends: ['governance.executed'],
    changes: ['whitelist.entry_added'],
  });
  const group = (await c.groups.load(streams.group(groupId))).state;
  expect(group.auditors.has(auditor)).toBe(true);
  expect(group.entries.has(String(p.params.address))).toBe(true);
});

describe('with a governance delay', () => {
  beforeAll(async () => {
    await enactAs(a, admin, groupId, 'governance.set', { delay_seconds: 60 });
  });

  it('two instances executing the same due proposal at once execute it once', async () => {
    for (let round = 0; round < 8; round++) {
      const p = await proposal();
      const ready = await signProposal(a, admin.address, p.proposal_id, signatureOf(p.message));
      expect(ready.status).toBe('ready');
      clock = Date.parse(ready.ready_at!);
      await Promise.all([tendProposals(a, groupId), tendProposals(b, groupId), tendProposals(b, groupId)]);
      expect(await recorded(p.proposal_id)).toEqual({
        ends: ['governance.executed'],
        changes: ['whitelist.entry_added'],
      });
    }
  });

  it('a cancel racing the execution: cancelled or executed, never both, and the change only with the execution', async () => {
    for (let round = 0; round < 8; round++) {
      const p = await proposal();
      const ready = await signProposal(a, admin.address, p.proposal_id, signatureOf(p.message));
      clock = Date.parse(ready.ready_at!);
      const [cancelled] = await Promise.all([
        settle(cancelProposal(a, admin.address, p.proposal_id, 'changed my mind')),
        tendProposals(b, groupId),
      ]);
      const { ends, changes } = await recorded(p.proposal_id);
      expect(ends).toHaveLength(1);
      if (ends[0] === 'governance.cancelled') {
        expect(changes).toEqual([]);
        expect(cancelled).toEqual({ value: expect.objectContaining({ status: 'cancelled' }) });
      } else {
        expect(ends).toEqual(['governance.executed']);
        expect(changes).toEqual(['whitelist.entry_added']);
        expect(cancelled).toEqual({ refused: 'conflict' });
      }
    }
  });

  it('a proposal past its time is expired by the scheduler, not executed, though it had its quorum', async () => {
    const p = await proposal();
    await signProposal(a, admin.address, p.proposal_id, signatureOf(p.message));
    clock = Date.parse(p.expires_at);
    await Promise.all([tendProposals(a, groupId), tendProposals(b, groupId)]);
    expect(await recorded(p.proposal_id)).toEqual({ ends: ['governance.expired'], changes: [] });
  });
});
