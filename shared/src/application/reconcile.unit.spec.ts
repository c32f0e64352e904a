/** The comparison of the log with the chain, on plain data: what it reports and what it leaves alone. */
import type { TokenBalance, TransactionView } from '../chain/payments';
import type { DomainEvent } from '../domain/events';
import { reconcile, type AgentRecord } from './reconcile';

const USDC = 'usdc-mint';
const SOL = 'sol-mint';
const tokens = [
  { symbol: 'USDC', mint: USDC, decimals: 6 },
  { symbol: 'SOL', mint: SOL, decimals: 9 },
];
const AGENT = 'agent-1';
const OTHER = 'agent-2';
const VENDOR = 'vendor';
const TREASURY = 'treasury';
const AGGREGATOR = 'aggregator';

let slot = 0n;
/** A transaction moving base units: [owner, mint, before, after] per token account. */
function tx(signature: string, moves: [string, string, bigint, bigint][], failed = false): TransactionView {
  const pre: TokenBalance[] = [];
  const post: TokenBalance[] = [];
  moves.forEach(([owner, mint, before, after], accountIndex) => {
    const decimals = mint === USDC ? 6 : 9;
    pre.push({ accountIndex, mint, owner, amount: before, decimals });
    post.push({ accountIndex, mint, owner, amount: after, decimals });
  });
  return {
    signature,
    signatures: [signature],
    slot: slot++,
    failed,
    accountKeys: ['payer', ...moves.map(([owner]) => owner), AGGREGATOR],
    numRequiredSignatures: 1,
    instructions: [],
    preTokenBalances: pre,
    postTokenBalances: post,
  };
}

const payment = (sig: string, amount: string, at = 1): DomainEvent => ({
  type: 'payment.received',
  data: { agent_id: AGENT, mint: USDC, amount, from: 'outside', tx_signature: sig, at },
});
const common = { agent_id: AGENT, group_id: 'g', value: '10', spends: true, entry_id: 'e', at: 2 };
const transfer = (id: string, sig: string, at = 2): DomainEvent[] => [
  {
    type: 'intent.accepted',
    data: {
      ...common,
      intent_id: id,
      action: 'transfer',
      amount: '10',
      mint: USDC,
      counterparty: VENDOR,
      protocol_fee: '0.01',
      net_amount: '9.99',
    },
  },
  { type: 'intent.confirmed', data: { intent_id: id, agent_id: AGENT, tx_sig: sig, at } },
];
const swapEvents: DomainEvent[] = [
  {
    type: 'intent.accepted',
    data: {
      ...common,
      intent_id: 'i-swap',
      action: 'swap',
      amount: '5',
      mint: USDC,
      counterparty: AGGREGATOR,
      params: { to_mint: SOL, minimum_amount_out: '0.01', slippage_bps: 50, quoted_amount_out: '0.02' },
    },
  },
  {
    type: 'intent.confirmed',
    data: {
      intent_id: 'i-swap',
      agent_id: AGENT,
      tx_sig: 'sig-swap',
      received_amount: '0.02',
      received_mint: SOL,
      at: 3,
    },
  },
];

const airdrop = tx('sig-airdrop', [[AGENT, USDC, 0n, 100_000_000n]]);
const paid = tx('sig-transfer', [
  [AGENT, USDC, 100_000_000n, 90_000_000n],
  [VENDOR, USDC, 0n, 9_990_000n],
  [TREASURY, USDC, 0n, 10_000n],
]);
const swapped = tx('sig-swap', [
  [AGENT, USDC, 90_000_000n, 85_000_000n],
  [AGENT, SOL, 0n, 20_000_000n],
  ['pool', USDC, 1n, 5_000_001n],
]);

const agent = (over: Partial<AgentRecord> = {}): AgentRecord => ({
  agentId: AGENT,
  events: [payment('sig-airdrop', '100'), ...transfer('i-1', 'sig-transfer'), ...swapEvents],
  transactions: [airdrop, paid, swapped],
  balances: new Map([
    [USDC, 85_000_000n],
    [SOL, 20_000_000n],
  ]),
  ...over,
});
const run = (agents: AgentRecord[], window = {}) => reconcile({ agents, tokens, treasury: TREASURY, window });

it('finds nothing when every intent, payment and balance agrees with the chain', () => {
  expect(run([agent()])).toEqual([]);
});

it('reports a movement out of the wallet that no event names, and the balance it leaves', () => {
  const theft = tx('sig-theft', [
    [AGENT, USDC, 85_000_000n, 84_750_000n],
    ['thief', USDC, 0n, 250_000n],
  ]);
  const found = run([
    agent({
      transactions: [airdrop, paid, swapped, theft],
      balances: new Map([
        [USDC, 84_750_000n],
        [SOL, 20_000_000n],
      ]),
    }),
  ]);
  expect(found).toEqual([
    expect.objectContaining({
      kind: 'unexplained_outflow',
      signature: 'sig-theft',
      mint: USDC,
      amount: '0.25',
    }),
    expect.objectContaining({
      kind: 'balance_mismatch',
      mint: USDC,
      expected: '85',
      actual: '84.75',
      difference: '-0.25',
    }),
  ]);
});

it('reports a transaction whose amounts differ from its intent, party by party', () => {
  const short = tx('sig-transfer', [
    [AGENT, USDC, 100_000_000n, 90_000_000n],
    [VENDOR, USDC, 0n, 9_980_000n],
    [TREASURY, USDC, 0n, 20_000n],
  ]);
  const found = run([agent({ transactions: [airdrop, short, swapped] })]);
  expect(found.map((d) => [d.kind, d.party, d.expected, d.actual])).toEqual([
    ['amount_mismatch', 'counterparty', '9.99', '9.98'],
    ['amount_mismatch', 'treasury', '0.01', '0.02'],
  ]);
});

it('reports a confirmed intent missing from the chain, failed on it, or moving a mint it does not name', () => {
  const otherMint = tx('sig-swap', [
    [AGENT, USDC, 90_000_000n, 85_000_000n],
    [AGENT, SOL, 0n, 20_000_000n],
    [AGENT, 'stray-mint', 5n, 0n],
  ]);
  expect(run([agent({ transactions: [airdrop, swapped] })]).map((d) => d.kind)).toEqual([
    'intent_not_on_chain',
  ]);
  expect(
    run([agent({ transactions: [airdrop, tx('sig-transfer', [], true), swapped] })]).map((d) => d.kind),
  ).toEqual(['intent_failed_on_chain']);
  expect(run([agent({ transactions: [airdrop, paid, otherMint] })])).toEqual([
    expect.objectContaining({ kind: 'unexpected_movement', mint: 'stray-mint', actual: '-0.000000005' }),
  ]);
});

it("credits a transfer to another agent of the group to that agent's balance", () => {
  const between = transfer('i-2', 'sig-between').map((e) =>
    e.type === 'intent.accepted' ? { ...e, data: { ...e.data, counterparty: OTHER } } : e,
  ) as DomainEvent[];
  const moved = tx('sig-between', [
    [AGENT, USDC, 100_000_000n, 90_000_000n],
    [OTHER, USDC, 0n, 9_990_000n],
    [TREASURY, USDC, 0n, 10_000n],
  ]);
  const sender = agent({
    events: [payment('sig-airdrop', '100'), ...between],
    transactions: [airdrop, moved],
    balances: new Map([[USDC, 90_000_000n]]),
  });
  const receiver: AgentRecord = {
    agentId: OTHER,
    events: [],
    transactions: [moved],
    balances: new Map([[USDC, 9_990_000n]]),
  };
  expect(run([sender, receiver])).toEqual([]);
});

it('names the intent when its transaction landed although the log records it failed', () => {
  const events: DomainEvent[] = [
    payment('sig-airdrop', '100'),
    transfer('i-3', 'x')[0]!,
    {
      type: 'intent.submitting',
      data: {
        intent_id: 'i-3',
        agent_id: AGENT,
        signature: 'sig-late',
        wire: '',
        last_valid_block_height: '1',
        at: 5,
      },
    },
    {
      type: 'intent.failed',
      data: { intent_id: 'i-3', agent_id: AGENT, code: 'internal_error', message: '', at: 6 },
    },
  ];
  const late = tx('sig-late', [
    [AGENT, USDC, 100_000_000n, 90_000_000n],
    [VENDOR, USDC, 0n, 9_990_000n],
  ]);
  const found = run([
    agent({ events, transactions: [airdrop, late], balances: new Map([[USDC, 90_000_000n]]) }),
  ]);
  expect(found[0]).toEqual(
    expect.objectContaining({
      kind: 'unexplained_outflow',
      intent_id: 'i-3',
      signature: 'sig-late',
      amount: '10',
    }),
  );
  expect(found[0]!.message).toMatch(/failed/);
});

it('limits intents and outflows to the window, placing an outflow between the transactions the log names', () => {
  const theft = tx('sig-theft', [[AGENT, USDC, 85_000_000n, 84_000_000n]]);
  // Between the transfer (t=2) and the swap (t=3); the agent holds 1 USDC less than the log implies.
  const record = agent({
    transactions: [airdrop, paid, theft, swapped],
    balances: new Map([
      [USDC, 84_000_000n],
      [SOL, 20_000_000n],
    ]),
  });
  const kinds = (window: object) => run([record], window).filter((d) => d.kind !== 'balance_mismatch');
  expect(kinds({ from: 4 })).toEqual([]);
  expect(kinds({ to: 1 })).toEqual([]);
  expect(kinds({ from: 3, to: 3 }).map((d) => d.signature)).toEqual(['sig-theft']);
  // Balances are compared as they are now, whatever the window.
  expect(run([record], { from: 4 }).map((d) => d.kind)).toEqual(['balance_mismatch']);
});

it('holds a swap to the mint it asked for', () => {
  const wrong = tx('sig-swap', [
    [AGENT, USDC, 90_000_000n, 85_000_000n],
    [AGENT, 'other-mint', 0n, 20_000_000n],
  ]);
  const found = run([agent({ transactions: [airdrop, paid, wrong] })]);
  expect(found.filter((d) => d.signature === 'sig-swap').map((d) => [d.kind, d.mint])).toEqual([
    ['amount_mismatch', SOL],
    ['unexpected_movement', 'other-mint'],
  ]);
});

it('takes an emergency withdrawal into account: the redeemed position and the moved tokens', () => {
  const KUSDC = 'kusdc-mint';
  const withTokens = [...tokens, { symbol: 'kUSDC', mint: KUSDC, decimals: 6 }];
  const events: DomainEvent[] = [
    payment('sig-airdrop', '100'),
    {
      type: 'intent.accepted',
      data: {
        ...common,
        intent_id: 'i-dep',
        action: 'deposit',
        amount: '40',
        mint: USDC,
        counterparty: 'venue',
        params: {},
      },
    },
    {
      type: 'intent.confirmed',
      data: {
        intent_id: 'i-dep',
        agent_id: AGENT,
        tx_sig: 'sig-dep',
        received_amount: '40',
        received_mint: KUSDC,
        at: 3,
      },
    },
    {
      type: 'agent.emergency_withdraw',
      data: {
        agent_id: AGENT,
        group_id: 'g',
        destination: 'cold',
        redeemed: [
          {
            lending_program: 'venue',
            receipt_mint: KUSDC,
            receipt_amount: '40',
            mint: USDC,
            amount: '41',
            tx_sig: 'sig-redeem',
          },
        ],
        moved: [{ mint: USDC, amount: '101', tx_sig: 'sig-move' }],
        at: 4,
      },
    },
  ];
  const transactions = [
    airdrop,
    tx('sig-dep', [
      [AGENT, USDC, 100_000_000n, 60_000_000n],
      [AGENT, KUSDC, 0n, 40_000_000n],
    ]),
    tx('sig-redeem', [
      [AGENT, KUSDC, 40_000_000n, 0n],
      [AGENT, USDC, 60_000_000n, 101_000_000n],
    ]),
    tx('sig-move', [
      [AGENT, USDC, 101_000_000n, 0n],
      ['cold', USDC, 0n, 101_000_000n],
    ]),
  ];
  const drained = { agentId: AGENT, events, transactions, balances: new Map([[USDC, 0n]]) };
  expect(reconcile({ agents: [drained], tokens: withTokens, treasury: TREASURY })).toEqual([]);
  // Without its record, the drain is two unexplained outflows and the balances the log implies differ.
  const unrecorded = { ...drained, events: events.slice(0, 3) };
  expect(
    reconcile({ agents: [unrecorded], tokens: withTokens, treasury: TREASURY }).map((d) => d.kind),
  ).toEqual(['unexplained_outflow', 'unexplained_outflow', 'balance_mismatch', 'balance_mismatch']);
});
