/**
 * The local lending venue on the local chain: real SPL Token transactions on LiteSVM, in process and
 * through the chain node over JSON-RPC (as executors use it), where the rate must come out the same
 * from the chain alone. The lending venue's contract (contract.ts) on both, then what is the local
 * venue's own: its configuration account, its tokens and yearly rate, klend's `cpi_data`, and
 * conservation of every mint.
 */
import { SECONDS_PER_YEAR } from '../domain/venue';
import { generateSigner, type Signer } from '../chain/keys';
import { LiteSvmChain } from '../chain/litesvm';
import { localFixtures } from '../chain/local-fixtures';
import type { LocalChain } from '../chain/port';
import { RpcChain } from '../chain/rpc';
import { serveChainRpc } from '../chain/rpc-node';
import { lendingVenueContract } from './contract';
import { klendInstructionData } from './klend';
import {
  LocalVenue,
  decodeLocalVenueConfig,
  ensureLocalVenue,
  localVenueConfigAddress,
  type EnsureLocalVenueOptions,
} from './local';
import { VenueDataRejected, VenueRefused, venueListing, type VenuePlan } from './port';

const USDC = 1_000_000n; // base units per USDC
const SOL = 1_000_000_000n;

interface World {
  /** What the venue and the test use: the chain in process, or a JSON-RPC client of the chain node. */
  chain: LocalChain;
  host: LiteSvmChain;
  venue: LocalVenue;
  seed: string;
  close(): Promise<void>;
}

async function inProcess(seed: string, options: EnsureLocalVenueOptions = {}): Promise<World> {
  const host = await LiteSvmChain.open({ seed });
  await ensureLocalVenue(host, { seed, apyBps: 500, ...options });
  return { chain: host, host, venue: await LocalVenue.open(host, { seed }), seed, close: () => host.close() };
}

async function overRpc(seed: string, options: EnsureLocalVenueOptions = {}): Promise<World> {
  const host = await LiteSvmChain.open({ seed });
  await ensureLocalVenue(host, { seed, apyBps: 500, ...options });
  const node = await serveChainRpc(host.node(), { port: 0 });
  const chain = RpcChain.local(node.url, seed);
  return {
    chain,
    host,
    venue: await LocalVenue.open(chain, { seed }),
    seed,
    close: async () => {
      await chain.close();
      await node.close();
      await host.close();
    },
  };
}

// A fresh chain for each suite, each of its own seed; `noInterestReserve`: a vault holding only deposits.
let worlds = 0;
for (const [name, open] of [
  ['the local venue on LiteSVM in process', inProcess],
  ['the local venue through the chain node over JSON-RPC', overRpc],
] as const)
  lendingVenueContract(name, (options) =>
    open(`venue-contract-${++worlds}`, options?.noInterestReserve ? { interestReserve: 0n } : {}),
  );

const supply = async (chain: LocalChain, mint: string) =>
  Buffer.from((await chain.readAccount(mint))!.data).readBigUInt64LE(36);

async function refusal(p: Promise<unknown>): Promise<VenueRefused> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(VenueRefused);
  return err as VenueRefused;
}

describe.each([
  ['LiteSVM in process', inProcess],
  ['the chain node over JSON-RPC', overRpc],
])('the local lending venue on %s', (_name, open) => {
  let w: World;
  let f: ReturnType<typeof localFixtures>;
  const usdc = () => f.mints[0]!.mint;
  const kusdc = () => f.venue.receipts[0]!.mint;
  const sol = () => f.mints[1]!.mint;
  const vault = async (mint = usdc()) => (await w.chain.tokenAccount(f.venue.authority.address, mint)).amount;
  const balance = async (owner: Signer, mint: string) =>
    (await w.chain.tokenAccount(owner.address, mint)).amount;
  /** Every address that ever held a token in this world, for the conservation check. */
  const holders = new Set<string>();

  const funded = async (amount: bigint, mint = usdc()) => {
    const agent = generateSigner();
    holders.add(agent.address);
    if (amount > 0n) await w.chain.mintTo(agent.address, mint, amount, `airdrop-${agent.address}`);
    return agent;
  };
  const run = async (agent: Signer, plan: VenuePlan) => {
    const tx = await w.chain.prepare(plan.instructions, [agent, ...plan.signers]);
    await w.chain.submit(tx);
    return tx.signature;
  };
  const deposit = async (agent: Signer, amount: bigint, mint = usdc(), cpiData?: Uint8Array) => {
    const plan = await w.venue.deposit({
      agent: agent.address,
      mint,
      amount,
      reference: `intent:${agent.address}:${amount}`,
      ...(cpiData && { cpiData }),
    });
    return { plan, signature: await run(agent, plan) };
  };
  const withdraw = async (agent: Signer, receiptAmount: bigint, mint = usdc(), cpiData?: Uint8Array) => {
    const plan = await w.venue.withdraw({
      agent: agent.address,
      mint,
      receiptAmount,
      reference: `intent:${agent.address}:w${receiptAmount}`,
      ...(cpiData && { cpiData }),
    });
    return { plan, signature: await run(agent, plan) };
  };

  beforeAll(async () => {
    const seed = `venue-test-${open.name}`;
    w = await open(seed);
    f = localFixtures(seed);
    holders.add(f.venue.authority.address);
  });
  afterAll(async () => w.close());

  it('lists itself for GET /venues: its program id, a name, and the underlying mints it takes', () => {
    expect(w.venue.program).toBe(f.venue.program);
    expect(w.venue.mints).toEqual([usdc(), sol()]);
    expect(w.venue.receiptMint(usdc())).toBe(kusdc());
    expect(w.venue.receiptMint(kusdc())).toBeUndefined();
    expect(w.venue.underlyingOf(kusdc())).toBe(usdc());
    expect(w.venue.underlyingOf(usdc())).toBe(usdc());
    expect(w.venue.underlyingOf(generateSigner().address)).toBeUndefined();
    expect(venueListing([w.venue])).toEqual({
      venues: [{ lending_program: f.venue.program, name: 'Local lending venue', mints: [usdc(), sol()] }],
    });
  });

  it('is created once: its configuration is on chain, owned by its program id; a second start changes nothing', async () => {
    const address = await localVenueConfigAddress(f.venue.program);
    const account = await w.chain.readAccount(address);
    expect(account?.owner).toBe(f.venue.program);
    const config = decodeLocalVenueConfig(account!.data);
    expect(config).toEqual(
      expect.objectContaining({ epoch: 0n, apyBps: 500, authority: f.venue.authority.address }),
    );
    expect(await vault(usdc())).toBe(1_000_000n * USDC); // the interest reserve
    expect(await vault(sol())).toBe(1_000_000n * SOL);

    const again = await ensureLocalVenue(w.host, { seed: w.seed, apyBps: 900, interestReserve: 5n });
    expect(again).toEqual({ created: false, config });
    expect((await w.chain.readAccount(address))!.data).toEqual(account!.data);
    expect(await vault(usdc())).toBe(1_000_000n * USDC);
  });

  it("takes cpi_data as klend's instruction for the same action and amount, and refuses anything else before signing", async () => {
    const agent = await funded(10n * USDC);
    const { plan } = await deposit(agent, 3n * USDC, usdc(), klendInstructionData('deposit', 3n * USDC));
    await withdraw(agent, plan.receiptAmount, usdc(), klendInstructionData('withdraw', plan.receiptAmount));
    const before = await balance(agent, usdc());
    for (const [action, data] of [
      ['deposit', klendInstructionData('deposit', 2n * USDC)], // another amount
      ['deposit', klendInstructionData('withdraw', 3n * USDC)], // another instruction
      ['deposit', new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9])], // unknown
      ['withdraw', klendInstructionData('deposit', 3n * USDC)],
    ] as const) {
      const attempt =
        action === 'deposit'
          ? w.venue.deposit({
              agent: agent.address,
              mint: usdc(),
              amount: 3n * USDC,
              cpiData: data,
              reference: 'x',
            })
          : w.venue.withdraw({
              agent: agent.address,
              mint: usdc(),
              receiptAmount: 3n * USDC,
              cpiData: data,
              reference: 'x',
            });
      expect(await refusal(attempt)).toBeInstanceOf(VenueDataRejected);
    }
    expect(await balance(agent, usdc())).toBe(before);
  });

  it('a year on the chain clock later, the same receipt tokens pay the yearly rate more; new deposits mint fewer', async () => {
    const early = await funded(1_000n * USDC);
    const soler = await funded(2n * SOL, sol());
    await deposit(early, 1_000n * USDC);
    await deposit(soler, 2n * SOL, sol());
    await w.chain.warp(SECONDS_PER_YEAR);
    expect((await w.venue.position(early.address, usdc())).underlying).toBe(1_050n * USDC);

    const { plan } = await withdraw(early, 1_000n * USDC);
    expect(plan.underlyingAmount).toBe(1_050n * USDC);
    expect(await balance(early, usdc())).toBe(1_050n * USDC);
    expect(await balance(early, kusdc())).toBe(0n);
    expect((await withdraw(soler, 2n * SOL, sol())).plan.underlyingAmount).toBe(2_100_000_000n);

    const late = await funded(1_000n * USDC);
    const { plan: later } = await deposit(late, 1_000n * USDC);
    expect(later.receiptAmount).toBe(952_380_952n); // 1,000 / 1.05, rounded down
    // withdrawn at once, it never returns more than it paid
    expect((await withdraw(late, later.receiptAmount)).plan.underlyingAmount).toBe(999_999_999n);
    // one unit buys no receipt token at 1.05: refused, not taken
    expect(
      (await refusal(w.venue.deposit({ agent: late.address, mint: usdc(), amount: 1n, reference: 'x' })))
        .reason,
    ).toBe('amount');
  });

  it('another process computes the same rate from the chain alone', async () => {
    const other = await LocalVenue.open(w.chain, { seed: w.seed });
    expect(await other.exchangeRate(usdc())).toEqual(await w.venue.exchangeRate(usdc()));
    expect(await other.exchangeRate(kusdc())).toEqual(await w.venue.exchangeRate(sol()));
  });

  it('conserves money: for every mint, what all holders hold is what was minted', async () => {
    for (const mint of [...f.mints, ...f.venue.receipts].map((m) => m.mint)) {
      let held = 0n;
      for (const owner of holders) held += (await w.chain.tokenAccount(owner, mint)).amount;
      expect({ mint, held }).toEqual({ mint, held: await supply(w.chain, mint) });
    }
  });
});
