/**
 * Executes an accepted intent on chain, exactly once, whatever its action: the spend kind
 * (shared/src/application/spends) says what goes on chain; this says how it gets there safely. A job
 * may run twice (BullMQ is at least once, a worker may die mid-job), so every step is safe to repeat:
 *
 *   1. The intent settled already: nothing to do (an intent an emergency stop or a freeze failed has
 *      its budget reservation released here too, in case the stop died before it did). A held intent
 *      runs only once its approval is approved; rejected or expired, it fails (application/approvals.ts).
 *      The agent's group is frozen: it fails (group_frozen), nothing signed.
 *   2. A submission is on record: ask the chain about its signature. Landed: confirm it. Failed:
 *      fail it. Unknown: send the very same signed bytes again (the chain refuses a duplicate, so it
 *      can never be paid twice); if their blockhash expired, they can no longer land: build anew. A
 *      locked build (below) is built anew at once: its output was fixed on reserves since moved.
 *   3. Nothing on record: check the funds, build, put the compute budget in front (a compute-unit
 *      price by PRIORITY_FEE, a limit from a simulation: chain/compute-budget.ts), sign, record the
 *      submission, then send.
 *
 * A kind that pays before its build (x402: the resource's facilitator lands the payment) pays first,
 * exactly once by its own record (spends/x402.ts); then its build (the protocol fee) takes the steps
 * above. Once that payment landed, the intent is confirmed whatever becomes of the rest. A payment
 * refused that may still land (PaymentPending) keeps the intent reserved: its job is done, and the
 * intent is run again after a while (`later`), until the payment lands or can no longer.
 *
 * Intents whose kind names a lock key (a swap reads a pool's reserves to build) run all of this one
 * at a time per key (locks.ts: in this process, or across executors through Redis).
 */
import Big from 'big.js';
import {
  BuildRefused,
  FROZEN,
  ChainFailure,
  PaymentPending,
  SLOT_TARGET_MS,
  approvalOf,
  followDecision,
  kindOf,
  checkFunds,
  classifyChainFailure,
  fromBaseUnits,
  inSpan,
  resume,
  settleReservations,
  settleIntent,
  streams,
  ServiceError,
  tokenByMint,
  bindContext,
  feeOf,
  messageOfWire,
  type Context,
  type Handoff,
  type IntentData,
  type IntentOutcome,
  type SignedTransaction,
  type SpendKind,
  type WindowItem,
} from '@tokenops/shared';
import { processLocks, type Locks } from './locks';

/** Signings of one intent in one run whose bytes the node refused for their blockhash, at most. */
const SIGNINGS = 3;
/** A pending payment is asked about again within this long, at most (a chain's slots can run fast). */
const RECHECK_MS = 2_000;

/** Runs an intent again after `delayMs` (its job queued with that delay). */
export type Later = (intent: IntentData, delayMs: number) => Promise<void>;

export interface ExecuteJob {
  intent: IntentData;
  /** The intent's trace, as the relay handed it on (when tracing is on). */
  trace?: Handoff;
}

type Receives = { mint: string; amount: string } | undefined;

export class Executor {
  constructor(
    private readonly ctx: Context,
    /** Told each outcome this executor records, with its intent (metrics). */
    private readonly onSettled: (status: IntentOutcome['status'], intent: IntentData) => void = () =>
      undefined,
    private readonly locks: Locks = processLocks(),
    private readonly later?: Later,
  ) {}

  async execute({ intent, trace }: ExecuteJob): Promise<void> {
    const kind = kindOf(intent);
    const lockKey = kind?.lockKey?.(intent as never);
    const run = () => this.executeOnce(kind, intent, lockKey !== undefined);
    return resume(trace, 'queue.wait', 'executor.execute', () =>
      lockKey ? this.locks(lockKey, bindContext(run)) : run(),
    );
  }

  private async executeOnce(
    kind: SpendKind<never, IntentData['action']> | undefined,
    intent: IntentData,
    locked: boolean,
  ): Promise<void> {
    // The funds are asked of the chain while the agent's stream is read: they are needed before
    // signing, and a job with nothing to do (settled already, a submission on record) drops the answer.
    let funds = this.shortOfFunds(intent);
    funds.catch(() => undefined);
    // The group is read beside the agent, for its freeze (below).
    const group = this.ctx.groups.load(streams.group(intent.group_id));
    group.catch(() => undefined);
    const agent = await inSpan('executor.load', () => this.ctx.agents.load(streams.agent(intent.agent_id)));
    let item = agent.state.intents.get(intent.intent_id);
    if (!item) return;
    if (item.status === 'failed') return settleReservations(this.ctx, intent, false);
    if (item.status !== 'reserved') return;
    if (item.held && !(await this.approved(intent))) return;
    // A frozen group: an intent accepted on a read made just before the freeze landed fails here, before
    // anything is signed (application/freeze.ts). One already submitted or paid is the chain's.
    const frozen = (await group).state.governance.frozen;
    if (frozen && !item.submission && !item.x402)
      return this.settle(intent, { status: 'failed', ...FROZEN.group_frozen(frozen.reason) });

    if (kind?.pay && !item.x402?.settled) {
      item = await this.payFirst(kind, intent, item.x402 ? undefined : funds);
      if (!item) return;
    }
    // What the build owes once a payment before it landed: the rest (x402: the protocol fee).
    const owed = item.x402?.settled && intent.action === 'transfer' ? intent.protocol_fee : undefined;
    if (owed !== undefined) {
      funds = this.shortOfFunds(intent, owed);
      funds.catch(() => undefined);
    }

    const previous = item.submission;
    if (previous) {
      const status = await this.ctx.chain.status(previous.signature);
      if (status === 'confirmed')
        return this.confirm(
          intent,
          previous.signature,
          Buffer.from(previous.wire, 'base64'),
          previous.receives,
        );
      if (status === 'failed')
        return this.settle(intent, {
          status: 'failed',
          code: 'internal_error',
          message: 'the transaction failed on chain',
        });
      // Never landed. A locked build (a local pool's swap) fixed its output on reserves that other
      // swaps may have moved since: build it anew from the live state. Anything else: the same bytes.
      if (!locked) {
        const resent = await this.send(
          intent,
          {
            signature: previous.signature,
            wire: new Uint8Array(Buffer.from(previous.wire, 'base64')),
            lastValidBlockHeight: BigInt(previous.lastValidBlockHeight),
          },
          previous.receives,
        );
        if (resent !== 'expired') return;
      }
    }

    if (!kind)
      return this.settle(intent, {
        status: 'failed',
        code: 'internal_error',
        message: `${intent.action} is not executed by this service`,
      });
    return this.buildAndSend(
      kind,
      intent,
      previous?.signature,
      previous ? this.shortOfFunds(intent, owed) : funds,
      owed,
    );
  }

  /**
   * The payment a kind makes before its build (x402), exactly once by its own record; the intent as it
   * stands once the payment settled, or undefined when the intent settled instead (refused, short of
   * funds: checked only before a payment is first signed; one on record is looked for, not re-checked).
   */
  private async payFirst(
    kind: SpendKind<never, IntentData['action']>,
    intent: IntentData,
    funds: Promise<IntentOutcome | undefined> | undefined,
  ): Promise<WindowItem | undefined> {
    const short = await funds;
    if (short) return void (await this.settle(intent, short));
    try {
      await kind.pay!(this.ctx, intent as never, await this.ctx.wallets.signer(intent.agent_id));
    } catch (err) {
      if (err instanceof BuildRefused)
        return void (await this.settle(intent, { status: 'failed', code: err.code, message: err.message }));
      if (err instanceof PaymentPending && this.later) {
        const blocks = Number(err.lastValidBlockHeight - err.height + 1n);
        const delay = Math.min(RECHECK_MS, Math.max(250, blocks * SLOT_TARGET_MS));
        return void (await this.later(intent, delay));
      }
      throw err; // the resource or the chain did not answer: the job retries, asking the chain first
    }
    const item = (await this.ctx.agents.load(streams.agent(intent.agent_id))).state.intents.get(
      intent.intent_id,
    );
    if (item?.status !== 'reserved') return undefined;
    if (!item.x402?.settled) throw new Error('the payment is not settled yet: the job retries');
    return item;
  }

  /**
   * Builds, records and sends; the record replaces `replaces` (the submission this job found), or none.
   * Bytes the node refuses for their blockhash (it moved past it while they were signed: the local node
   * rotates every few thousand transactions, a cluster's expire) never landed: they are signed anew on
   * the next at once, a few times, then the job retries.
   */
  private async buildAndSend(
    kind: SpendKind<never, IntentData['action']>,
    intent: IntentData,
    replaces: string | undefined,
    funds: Promise<IntentOutcome | undefined>,
    owed: string | undefined,
    attempt = 1,
  ): Promise<void> {
    const short = await inSpan('executor.funds', () => funds);
    if (short) return this.settle(intent, short);
    let signed;
    try {
      signed = await inSpan('executor.build', () => this.sign(kind, intent));
    } catch (err) {
      if (err instanceof BuildRefused)
        return this.settle(intent, { status: 'failed', code: err.code, message: err.message });
      throw err; // transport trouble (a quote that timed out, the chain away): the job retries
    }
    const { built, tx } = signed;
    const receives: Receives = built.receives && {
      mint: built.receives.mint,
      amount: fromBaseUnits(built.receives.amount, this.decimals(built.receives.mint)).toFixed(),
    };
    const recorded = await inSpan('submission.append', () => this.record(intent, tx, receives, replaces));
    if (!recorded || (await this.send(intent, tx, receives)) !== 'expired') return;
    if (attempt >= SIGNINGS)
      throw new Error(`signed ${attempt} times on blockhashes the node no longer knew: the job retries`);
    return this.buildAndSend(kind, intent, tx.signature, this.shortOfFunds(intent, owed), owed, attempt + 1);
  }

  /**
   * The kind's build for the intent, its compute budget in front, signed by the agent's key (and the
   * build's own signers).
   */
  private async sign(kind: SpendKind<never, IntentData['action']>, intent: IntentData) {
    const signer = await this.ctx.wallets.signer(intent.agent_id);
    const built = await kind.build(this.ctx, intent as never, signer);
    const tx = await inSpan('executor.budget', () =>
      this.ctx.computeBudget.prepare(this.ctx.chain, built.instructions, [signer, ...built.signers]),
    );
    return { built, tx };
  }

  /**
   * Records the signed transaction before it is sent: true when this run recorded it, false when
   * another run recorded (or settled) the intent first, and it sends, not this one.
   */
  private record(
    intent: IntentData,
    tx: SignedTransaction,
    receives: Receives,
    replaces: string | undefined,
  ): Promise<boolean> {
    return this.ctx.agents.handle(streams.agent(intent.agent_id), (state) => {
      const current = state.intents.get(intent.intent_id);
      // Another run recorded (or settled) first: it sends, not this one.
      if (current?.status !== 'reserved' || current.submission?.signature !== replaces)
        return { events: [], result: false };
      return {
        events: [
          {
            type: 'intent.submitting' as const,
            data: {
              intent_id: intent.intent_id,
              agent_id: intent.agent_id,
              signature: tx.signature,
              wire: Buffer.from(tx.wire).toString('base64'),
              last_valid_block_height: String(tx.lastValidBlockHeight),
              ...(receives && { receives }),
              at: this.ctx.now(),
            },
          },
        ],
        result: true,
      };
    });
  }

  /** Whether a held intent's approval is approved; a rejected or expired one is failed here (idempotent). */
  private async approved(intent: IntentData): Promise<boolean> {
    const record = await approvalOf(this.ctx, intent.group_id, intent.held!.approval_id);
    if (record?.status === 'approved') return true;
    if (record) await followDecision(this.ctx, record);
    return false;
  }

  /** A failure when the agent does not hold what the intent pays, or `owed` of it (checked before anything is signed). */
  private async shortOfFunds(intent: IntentData, owed = intent.amount): Promise<IntentOutcome | undefined> {
    try {
      const account = await this.ctx.chain.tokenAccount(intent.agent_id, intent.mint);
      const decimals = this.decimals(intent.mint);
      checkFunds({ exists: account.exists, balance: fromBaseUnits(account.amount, decimals) }, new Big(owed));
      return undefined;
    } catch (err) {
      if (err instanceof ServiceError) return { status: 'failed', code: err.code, message: err.message };
      throw err;
    }
  }

  /** Sends signed bytes and settles by what happens; 'expired' when they can no longer land. */
  private async send(
    intent: IntentData,
    tx: Pick<SignedTransaction, 'signature' | 'wire' | 'lastValidBlockHeight'> & {
      transaction?: SignedTransaction['transaction'];
    },
    receives: Receives,
  ): Promise<'settled' | 'expired'> {
    try {
      await this.ctx.chain.submit(tx as SignedTransaction);
      await this.confirm(intent, tx.signature, tx.wire, receives);
      return 'settled';
    } catch (err) {
      if (!(err instanceof ChainFailure)) throw err; // transport trouble: the job retries and looks again
      const status = await this.ctx.chain.status(tx.signature);
      if (status === 'confirmed') {
        await this.confirm(intent, tx.signature, tx.wire, receives);
        return 'settled';
      }
      if (/BlockhashExpired|BlockhashNotFound/.test(err.error) && status === 'unknown') return 'expired';
      await this.settle(intent, { status: 'failed', code: classifyChainFailure(err), message: err.message });
      return 'settled';
    }
  }

  /** Confirms with the SOL fee the landed bytes paid and their fee payer (what the chain took follows from the bytes). */
  private confirm(
    intent: IntentData,
    signature: string,
    wire: Uint8Array,
    receives: Receives,
  ): Promise<void> {
    return this.settle(intent, {
      status: 'confirmed',
      tx_sig: signature,
      ...(receives && { received: { mint: receives.mint, amount: new Big(receives.amount) } }),
      solFee: feeOf(messageOfWire(wire)),
    });
  }

  private decimals(mint: string): number {
    return tokenByMint(this.ctx.chain.tokens, mint)?.decimals ?? 0;
  }

  private async settle(intent: IntentData, outcome: IntentOutcome): Promise<void> {
    const recorded = await inSpan('outcome.append', () => settleIntent(this.ctx, intent, outcome));
    if (recorded) this.onSettled(outcome.status, intent);
  }
}
