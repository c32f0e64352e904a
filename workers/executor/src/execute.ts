/**
 * Executes an accepted transfer on chain, exactly once. A job may run twice (BullMQ is at least once,
 * a worker may die mid-job), so every step is safe to repeat:
 *
 *   1. The intent settled already: nothing to do.
 *   2. A submission is on record: ask the chain about its signature. Landed: confirm it. Failed:
 *      fail it. Unknown: send the very same signed bytes again (the chain refuses a duplicate, so it
 *      can never be paid twice); if their blockhash expired, they can no longer land: sign anew.
 *   3. Nothing on record: check the funds, sign, record the submission, then send.
 *
 * Settling appends intent.confirmed or intent.failed to the agent (releasing the reservation on
 * failure) and settles the recipient's budget for a type-1 entry.
 */
import {
  ChainFailure,
  checkFunds,
  classifyChainFailure,
  settleReservation,
  decideSettleIntent,
  fromBaseUnits,
  prepareTransfer,
  streams,
  toBaseUnits,
  type Context,
  type IntentData,
  type IntentOutcome,
  type SignedTransaction,
} from '@tokenops/shared';
import Big from 'big.js';

export interface ExecuteJob {
  intent: IntentData;
}

export class Executor {
  constructor(
    private readonly ctx: Context,
    /** Told each outcome this executor records (metrics). */
    private readonly onSettled: (status: IntentOutcome['status']) => void = () => undefined,
  ) {}

  async execute({ intent }: ExecuteJob): Promise<void> {
    if (intent.action !== 'transfer') {
      return this.settle(intent, {
        status: 'failed',
        code: 'internal_error',
        message: `${intent.action} is not executed by this service yet`,
      });
    }
    const agent = await this.ctx.agents.load(streams.agent(intent.agent_id));
    const item = agent.state.intents.get(intent.intent_id);
    if (!item || item.status !== 'reserved') return;

    if (item.submission) {
      const status = await this.ctx.chain.status(item.submission.signature);
      if (status === 'confirmed')
        return this.settle(intent, { status: 'confirmed', tx_sig: item.submission.signature });
      if (status === 'failed')
        return this.settle(intent, {
          status: 'failed',
          code: 'internal_error',
          message: 'the transaction failed on chain',
        });
      const resent = await this.send(intent, {
        signature: item.submission.signature,
        wire: new Uint8Array(Buffer.from(item.submission.wire, 'base64')),
        lastValidBlockHeight: BigInt(item.submission.lastValidBlockHeight),
      });
      if (resent !== 'expired') return;
    }

    const token = this.ctx.chain.tokens.find((t) => t.mint === intent.mint);
    if (!token)
      return this.settle(intent, {
        status: 'failed',
        code: 'token_not_in_registry',
        message: 'The token left the registry.',
      });
    const amount = new Big(intent.amount);
    const account = await this.ctx.chain.tokenAccount(intent.agent_id, intent.mint);
    try {
      checkFunds({ exists: account.exists, balance: fromBaseUnits(account.amount, token.decimals) }, amount);
    } catch (err) {
      const e = err as { code: 'insufficient_balance' | 'account_not_initialized'; message: string };
      return this.settle(intent, { status: 'failed', code: e.code, message: e.message });
    }
    const tx = await prepareTransfer(this.ctx.chain, {
      from: await this.ctx.wallets.signer(intent.agent_id),
      to: intent.counterparty,
      mint: intent.mint,
      decimals: token.decimals,
      net: toBaseUnits(new Big(intent.net_amount ?? intent.amount), token.decimals),
      fee: toBaseUnits(new Big(intent.protocol_fee ?? '0'), token.decimals),
      treasury: this.ctx.chain.treasury,
      reference: `intent:${intent.intent_id}`,
    });
    const recorded = await this.ctx.agents.handle(streams.agent(intent.agent_id), (state) => {
      const current = state.intents.get(intent.intent_id);
      if (!current || current.status !== 'reserved') return { events: [], result: false };
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
              at: this.ctx.now(),
            },
          },
        ],
        result: true,
      };
    });
    if (recorded) await this.send(intent, tx);
  }

  /** Sends signed bytes and settles by what happens; 'expired' when they can no longer land. */
  private async send(
    intent: IntentData,
    tx: Pick<SignedTransaction, 'signature' | 'wire' | 'lastValidBlockHeight'> & {
      transaction?: SignedTransaction['transaction'];
    },
  ): Promise<'settled' | 'expired'> {
    try {
      await this.ctx.chain.submit(tx as SignedTransaction);
      await this.settle(intent, { status: 'confirmed', tx_sig: tx.signature });
      return 'settled';
    } catch (err) {
      if (!(err instanceof ChainFailure)) throw err; // transport trouble: the job retries and looks again
      const status = await this.ctx.chain.status(tx.signature);
      if (status === 'confirmed') {
        await this.settle(intent, { status: 'confirmed', tx_sig: tx.signature });
        return 'settled';
      }
      if (/BlockhashExpired|BlockhashNotFound/.test(err.error) && status === 'unknown') return 'expired';
      await this.settle(intent, { status: 'failed', code: classifyChainFailure(err), message: err.message });
      return 'settled';
    }
  }

  private async settle(intent: IntentData, outcome: IntentOutcome): Promise<void> {
    const now = this.ctx.now();
    if (intent.budget_entry_id) {
      const group = await this.ctx.groups.load(streams.group(intent.group_id));
      const live = group.state.entries.get(intent.counterparty);
      const entry =
        live?.entryId === intent.budget_entry_id
          ? live
          : { entryId: intent.budget_entry_id, address: intent.counterparty, type: 1 as const };
      await settleReservation(this.ctx, entry, intent.intent_id, outcome.status === 'confirmed', now);
    }
    const settled = await this.ctx.agents.handle(streams.agent(intent.agent_id), (state) => {
      const events = decideSettleIntent({ intent_id: intent.intent_id, outcome, now }, state);
      return { events, result: events.length > 0 };
    });
    if (settled) this.onSettled(outcome.status);
  }
}
