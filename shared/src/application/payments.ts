/**
 * Outside payments into agent wallets, recorded once each: `payment.received` in
 * `payments-<agent>`, which balances (and webhooks) follow.
 *
 * Once per (transaction signature, mint): the event's id is a UUID derived from the two, and it is
 * appended only when the stream does not hold that id yet, at the revision it was read at (a
 * concurrent writer makes the append conflict, and the stream is read again). So the watcher, a
 * second watcher, a restarted one and the local chain's airdrop, whichever sees a payment first,
 * record it once between them, on every event store (the id alone would not do: the port only
 * promises that an append repeated as it was is stored once; the PostgreSQL store goes further, an
 * EventStoreDB server need not).
 *
 * The watcher (in the executor on the server topology, in the process on the embedded default) learns the agents from the log
 * (`agent.registered`) and asks the chain for the payments into each since the last time
 * (chain/payments.ts: transactions the agent did not sign that raised its balances). It asks about
 * what the chain says was touched: it watches each agent's token accounts (a subscription: the
 * chain tells it the signature of every transaction that touches one), and every `intervalMs` asks
 * about the accounts that transactions other than the service's own touched. Every `sweepMs` it asks
 * about every account of every agent, which finds what a lost notification missed; a source that
 * cannot tell what was touched is swept every `intervalMs`. So an agent nobody pays costs nothing
 * between sweeps, however many agents there are. It leaves
 * out transactions signed by any wallet in custody: the service's own agents pay each other through
 * intents, and `intent.confirmed` already credits the receiving agent; recording the same transfer
 * as a payment would count it twice. (The one other move between wallets in custody, an emergency
 * withdrawal into another agent, records its payment itself: emergency.ts.) The transactions the log names before they are sent
 * (`intent.submitting`) are not even read from the chain. A start reads each agent's recent window
 * again (`window` transactions per token account) and records nothing twice.
 */
import { v5 as uuidv5 } from 'uuid';
import { decodeEvent, streams, type PaymentReceived } from '../domain/events';
import { WrongExpectedRevision, ofTypes, type EventStore } from '../event-store/port';
import type { IncomingPayment, PaymentCursor, PaymentSource } from '../chain/payments';
import { ata } from '../chain/transactions';
import type { Context } from './context';

/** The namespace of payment event ids (UUID v5 of `<signature>:<mint>`). */
const PAYMENT_IDS = '6f0f4a53-2c1e-4b8e-9a57-5d3c1e0b7a21';

export const paymentEventId = (signature: string, mint: string): string =>
  uuidv5(`${signature}:${mint}`, PAYMENT_IDS);

export type PaymentData = PaymentReceived['data'];

const SUBMITTED_KEPT = 100_000;

/** Appends payments once each; remembers what it read of the streams (the most recently used `maxStreams`). */
export class PaymentLog {
  private readonly known = new Map<string, { revision: bigint | undefined; ids: Set<string> }>();

  constructor(
    private readonly store: EventStore,
    private readonly maxStreams = 10_000,
  ) {}

  /** Records the payment unless its (signature, mint) is recorded already; false when it found it there. */
  async record(data: PaymentData): Promise<boolean> {
    const stream = streams.payments(data.agent_id);
    const id = paymentEventId(data.tx_signature, data.mint);
    for (;;) {
      const known = await this.read(stream);
      if (known.ids.has(id)) return false;
      try {
        await this.store.append(
          stream,
          [{ id, type: 'payment.received', data }],
          known.revision ?? 'no_stream',
        );
        known.ids.add(id); // the revision is left to the next read, which sees whatever else landed
        return true;
      } catch (err) {
        if (!(err instanceof WrongExpectedRevision)) throw err;
      }
    }
  }

  private async read(stream: string) {
    const known = this.known.get(stream) ?? { revision: undefined, ids: new Set<string>() };
    this.known.delete(stream);
    this.known.set(stream, known);
    if (this.known.size > this.maxStreams) this.known.delete(this.known.keys().next().value!);
    const from = known.revision === undefined ? 0n : known.revision + 1n;
    for (const e of await this.store.readStream(stream, { fromRevision: from })) {
      known.ids.add(e.id);
      known.revision = e.revision;
    }
    return known;
  }
}

export interface PaymentWatcherOptions {
  /** How often the accounts transactions touched are asked about (every account, without notifications). */
  intervalMs: number;
  /** How often every account of every agent is asked about, notified or not (60 s when absent). */
  sweepMs?: number;
  /** Transactions per token account a first look (or a restart) reads back. */
  window?: number;
  /** Agents asked about at once. */
  concurrency?: number;
  /** A payment was recorded. */
  onPayment?(payment: PaymentData): void;
  /**
   * A pass over every agent known ended; `failures`: the agents whose payments could not be read or
   * recorded (the chain or the log did not answer), tried again at the next pass.
   */
  onPass?(failures: { agent: string; error: unknown }[]): void;
}

export interface PaymentWatcher {
  /** Settles when the watcher ends: resolved on stop, rejected when following the log failed. */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

export function startPaymentWatcher(
  ctx: Pick<Context, 'store' | 'chain' | 'wallets' | 'now'>,
  source: PaymentSource,
  options: PaymentWatcherOptions,
): PaymentWatcher {
  const agents = new Set<string>();
  /** Token accounts touched since the last pass, by transactions not known as the service's own. */
  let touches: { agent: string; mint: string; signature: string }[] = [];
  const unwatch: (() => void)[] = [];
  const watchAgent = (agent: string) => {
    const watchAccount = source.watchAccount?.bind(source);
    if (!watchAccount) return;
    // A first look at what it was paid before it was watched (or before this watcher started).
    for (const mint of mints) touches.push({ agent, mint, signature: '' });
    for (const mint of mints)
      void ata(agent, mint).then((address) => {
        if (!stopped)
          unwatch.push(watchAccount(address, (signature) => touches.push({ agent, mint, signature })));
      });
  };
  const cursors = new Map<string, PaymentCursor>();
  const custody = new Map<string, boolean>();
  /** Signatures of the executor's own transactions (the newest SUBMITTED_KEPT), from the log. */
  const submitted = new Set<string>();
  const log = new PaymentLog(ctx.store);
  const mints = ctx.chain.tokens.map((t) => t.mint);
  let stopped = false;
  let wake: (() => void) | undefined;

  const following = ctx.store.subscribeToAll({
    wakeFor: ofTypes('agent.registered', 'intent.submitting'),
    onEvent: (event) => {
      const e = decodeEvent(event);
      if (e?.type === 'agent.registered' && !agents.has(e.data.agent_id)) {
        agents.add(e.data.agent_id);
        watchAgent(e.data.agent_id);
      }
      if (e?.type === 'intent.submitting') {
        submitted.add(e.data.signature);
        if (submitted.size > SUBMITTED_KEPT) submitted.delete(submitted.values().next().value!);
      }
    },
  });

  const inCustody = async (address: string) => {
    let found = custody.get(address);
    if (found === undefined) {
      found = await ctx.wallets.inCustody(address);
      if (custody.size > 100_000) custody.clear();
      custody.set(address, found);
    }
    return found;
  };
  const ours = async (p: IncomingPayment) => {
    for (const signer of p.signers) if (await inCustody(signer)) return true;
    return false;
  };

  const watch = async (agent: string, watched: readonly string[]) => {
    const after = cursors.get(agent);
    const { payments, cursor } = await source.incomingPayments(agent, watched, {
      ...(after && { after }),
      ...(options.window && { window: options.window }),
      skip: (signature) => submitted.has(signature),
    });
    for (const p of payments) {
      if (await ours(p)) continue;
      const data: PaymentData = {
        agent_id: agent,
        mint: p.mint,
        amount: p.amountText,
        from: p.from,
        tx_signature: p.signature,
        at: ctx.now(),
      };
      if (await log.record(data)) options.onPayment?.(data);
    }
    cursors.set(agent, cursor); // only once every payment up to it is recorded
  };

  let sweptAt = -Infinity;
  /** The agents to ask about in this pass, each with its mints: every one at a sweep, else the touched. */
  const due = (): [string, string[]][] => {
    const touched = touches;
    touches = [];
    if (!source.watchAccount || Date.now() - sweptAt >= (options.sweepMs ?? 60_000)) {
      sweptAt = Date.now();
      return [...agents].map((agent) => [agent, mints]);
    }
    const byAgent = new Map<string, Set<string>>();
    for (const t of touched)
      if (!submitted.has(t.signature)) byAgent.set(t.agent, (byAgent.get(t.agent) ?? new Set()).add(t.mint));
    return [...byAgent].map(([agent, m]) => [agent, [...m]]);
  };

  const pass = async () => {
    const queue = due();
    let next = 0;
    const failures: { agent: string; error: unknown }[] = [];
    const worker = async () => {
      for (let item = queue[next++]; item !== undefined && !stopped; item = queue[next++]) {
        const [agent, watched] = item;
        await watch(agent, watched).catch((error: unknown) => {
          failures.push({ agent, error });
          // Asked again at the next pass.
          for (const mint of watched) touches.push({ agent, mint, signature: '' });
        });
      }
    };
    await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
    if (!stopped) options.onPass?.(failures);
  };

  const run = async () => {
    while (!stopped) {
      await pass();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.intervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
        if (stopped) wake();
      });
      wake = undefined;
    }
  };
  const running = run();
  const done = Promise.race([running, following.done]);
  done.catch(() => undefined);
  return {
    done,
    stop: async () => {
      stopped = true;
      wake?.();
      await running;
      await following.stop();
      unwatch.splice(0).forEach((stop) => stop());
    },
  };
}
