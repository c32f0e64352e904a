/**
 * Executes an accepted intent on chain, exactly once, whatever its action: the spend kind
 * (shared/src/application/spends) says what goes on chain; this says how it gets there safely. A job
 * may run twice (BullMQ is at least once, a worker may die mid-job), so every step is safe to repeat:
 *
 *   1. The intent settled already: nothing to do (an intent an emergency stop failed has its budget
 *      reservation released here too, in case the stop died before it did).
 *   2. A submission is on record: ask the chain about its signature. Landed: confirm it. Failed:
 *      fail it. Unknown: send the very same signed bytes again (the chain refuses a duplicate, so it
 *      can never be paid twice); if their blockhash expired, they can no longer land: build anew.
 *   3. Nothing on record: check the funds, build, sign, record the submission, then send.
 *
 * Intents whose kind names a lock key (a swap reads a pool's reserves to build) are built and landed
 * one at a time per key (locks.ts: in this process, or across executors through Redis).
 */
import Big from 'big.js';
import {
  BuildRefused,
  ChainFailure,
  SPEND_KINDS,
  checkFunds,
  classifyChainFailure,
  fromBaseUnits,
  settleBudget,
  settleIntent,
  streams,
  ServiceError,
  type Context,
  type IntentData,
  type IntentOutcome,
  type SignedTransaction,
  type SpendKind,
} from '@tokenops/shared';
import { processLocks, type Locks } from './locks';

export interface ExecuteJob {
  intent: IntentData;
}

type Receives = { mint: string; amount: string } | undefined;

export class Executor {
  constructor(
    private readonly ctx: Context,
    /** Told each outcome this executor records (metrics). */
    private readonly onSettled: (status: IntentOutcome['status']) => void = () => undefined,
    private readonly locks: Locks = processLocks(),
  ) {}

  async execute({ intent }: ExecuteJob): Promise<void> {
    const agent = await this.ctx.agents.load(streams.agent(intent.agent_id));
    const item = agent.state.intents.get(intent.intent_id);
    if (!item) return;
    if (item.status === 'failed') return settleBudget(this.ctx, intent, false);
    if (item.status !== 'reserved') return;

    if (item.submission) {
      const { signature, receives } = item.submission;
      const status = await this.ctx.chain.status(signature);
      if (status === 'confirmed') return this.confirm(intent, signature, receives);
      if (status === 'failed')
        return this.settle(intent, {
          status: 'failed',
          code: 'internal_error',
          message: 'the transaction failed on chain',
        });
      const resent = await this.send(
        intent,
        {
          signature,
          wire: new Uint8Array(Buffer.from(item.submission.wire, 'base64')),
          lastValidBlockHeight: BigInt(item.submission.lastValidBlockHeight),
        },
        receives,
      );
      if (resent !== 'expired') return;
    }

    const kind = SPEND_KINDS[intent.action] as SpendKind<never, IntentData['action']> | undefined;
    if (!kind)
      return this.settle(intent, {
        status: 'failed',
        code: 'internal_error',
        message: `${intent.action} is not executed by this service`,
      });
    const lockKey = kind.lockKey?.(intent as never);
    const run = () => this.buildAndSend(kind, intent);
    return lockKey ? this.locks(lockKey, run) : run();
  }

  private async buildAndSend(
    kind: SpendKind<never, IntentData['action']>,
    intent: IntentData,
  ): Promise<void> {
    const short = await this.shortOfFunds(kind, intent);
    if (short) return this.settle(intent, short);
    const signer = await this.ctx.wallets.signer(intent.agent_id);
    let built;
    try {
      built = await kind.build(this.ctx, intent as never, signer);
    } catch (err) {
      if (err instanceof BuildRefused)
        return this.settle(intent, { status: 'failed', code: err.code, message: err.message });
      throw err; // transport trouble (a quote that timed out, the chain away): the job retries
    }
    const tx = await this.ctx.chain.prepare(built.instructions, [signer, ...built.signers]);
    const receives: Receives = built.receives && {
      mint: built.receives.mint,
      amount: fromBaseUnits(built.receives.amount, this.decimals(built.receives.mint)).toFixed(),
    };
    const recorded = await this.ctx.agents.handle(streams.agent(intent.agent_id), (state) => {
      const current = state.intents.get(intent.intent_id);
      if (!current || current.status !== 'reserved' || current.submission)
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
    if (recorded) await this.send(intent, tx, receives);
  }

  /** A failure when the agent does not hold what the intent pays (checked before anything is signed). */
  private async shortOfFunds(
    kind: SpendKind<never, IntentData['action']>,
    intent: IntentData,
  ): Promise<IntentOutcome | undefined> {
    try {
      const pays = kind.pays(this.ctx, intent as never);
      const account = await this.ctx.chain.tokenAccount(intent.agent_id, pays.mint);
      const decimals = this.decimals(pays.mint);
      checkFunds(
        { exists: account.exists, balance: fromBaseUnits(account.amount, decimals) },
        fromBaseUnits(pays.amount, decimals),
      );
      return undefined;
    } catch (err) {
      if (err instanceof BuildRefused || err instanceof ServiceError)
        return { status: 'failed', code: err.code, message: err.message };
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
      await this.confirm(intent, tx.signature, receives);
      return 'settled';
    } catch (err) {
      if (!(err instanceof ChainFailure)) throw err; // transport trouble: the job retries and looks again
      const status = await this.ctx.chain.status(tx.signature);
      if (status === 'confirmed') {
        await this.confirm(intent, tx.signature, receives);
        return 'settled';
      }
      if (/BlockhashExpired|BlockhashNotFound/.test(err.error) && status === 'unknown') return 'expired';
      await this.settle(intent, { status: 'failed', code: classifyChainFailure(err), message: err.message });
      return 'settled';
    }
  }

  private confirm(intent: IntentData, signature: string, receives: Receives): Promise<void> {
    return this.settle(intent, {
      status: 'confirmed',
      tx_sig: signature,
      ...(receives && { received: { mint: receives.mint, amount: new Big(receives.amount) } }),
    });
  }

  private decimals(mint: string): number {
    return this.ctx.chain.tokens.find((t) => t.mint === mint)?.decimals ?? 0;
  }

  private async settle(intent: IntentData, outcome: IntentOutcome): Promise<void> {
    if (await settleIntent(this.ctx, intent, outcome)) this.onSettled(outcome.status);
  }
}
