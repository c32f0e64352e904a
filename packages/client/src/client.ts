/**
 * The agent's client: one method per operation of the /api/v1 contract, typed from its OpenAPI
 * document (generated/agent-api.ts) and sent by openapi-fetch. A refusal is thrown as a TokenOpsError
 * with the contract's code; a spend gets an idempotency key when the caller gives none, the same on
 * every retry of the client (retry.ts).
 */
import { randomUUID } from 'node:crypto';
import { Connection, type ConnectionOptions } from './connection';
import type { components, paths } from './generated/agent-api';

type Schemas = components['schemas'];
/** A spend's request with its idempotency key optional: the client makes one when it is missing. */
type Spend<T extends { idempotency_key: string }> = Omit<T, 'idempotency_key'> & { idempotency_key?: string };

export type TransferInput = Spend<Schemas['TransferRequest']>;
export type SwapInput = Spend<Schemas['SwapRequest']>;
export type DepositInput = Spend<Schemas['DepositRequest']>;
export type WithdrawInput = Spend<Schemas['WithdrawRequest']>;
export type SimulateInput = Schemas['SimulateRequest'];
/** An x402 payment: what to request besides its URL, and `max`, the most its price may be. */
export type PayInput = Omit<Spend<Schemas['X402PayRequest']>, 'url' | 'max_amount'> & {
  max: Schemas['X402PayRequest']['max_amount'];
};
export type PayResult = Schemas['X402PayResponse'];
export type WebhookInput = Schemas['WebhookRequest'];
export type EventType = WebhookInput['event_types'][number];
export type TransferResult = Schemas['TransferResponse'];
export type SwapResult = Schemas['SwapResponse'];
export type DepositResult = Schemas['DepositResponse'];
export type WithdrawResult = Schemas['WithdrawResponse'];
export type SimulateResult = Schemas['SimulateResponse'];
export type Balance = Schemas['BalanceResponse'];
export type Limits = Schemas['LimitsResponse'];
export type HistoryEntry = Schemas['HistoryEntry'];
export type Registration = Schemas['RegisterResponse'];
export type WebhookCreated = Schemas['WebhookResponse'];

/** One subscription as GET /api/v1/webhooks lists it. */
export type WebhookSubscription = Schemas['WebhookSubscriptionView'];

export type { ConnectionOptions };

export interface ClientOptions extends ConnectionOptions {
  /** The service's URL, such as `https://tokenops.example.com` (`/api/v1` is added unless present). */
  baseUrl: string;
  /** The agent's API key, from register. */
  apiKey: string;
}

/** Exchanges a one-time invitation code for the agent's API key (shown once: keep it). */
export async function register(
  baseUrl: string,
  invitationCode: string,
  options: ConnectionOptions = {},
): Promise<Registration> {
  const c = new Connection<paths>(baseUrl, {}, options);
  // Not retried but on 429: a code is redeemed once, and a lost answer cannot be asked for again.
  const body = { invitation_code: invitationCode };
  return c.result(c.api.POST('/register', { body, ...c.once }));
}

const withKey = <T extends { idempotency_key?: string }>(input: T) => ({
  ...input,
  idempotency_key: input.idempotency_key ?? randomUUID(),
});

export class TokenOpsClient {
  /** The same as the standalone `register`. */
  static readonly register = register;
  private readonly c: Connection<paths>;

  constructor(options: ClientOptions) {
    this.c = new Connection<paths>(options.baseUrl, { authorization: `Bearer ${options.apiKey}` }, options);
  }

  // ---- intents (idempotent: the same key on every retry) ------------------------------------------

  /** Sends tokens to an allow-listed recipient; the 0.10 % protocol fee is deducted from `amount`. */
  transfer(input: TransferInput): Promise<TransferResult> {
    const body = withKey(input);
    return this.c.result(this.c.api.POST('/transfer', { body }), body.idempotency_key);
  }

  /** Swaps through the configured aggregator under the limits, with a minimum output. */
  swap(input: SwapInput): Promise<SwapResult> {
    const body = withKey(input);
    return this.c.result(this.c.api.POST('/swap', { body }), body.idempotency_key);
  }

  /** Deposits into an allow-listed lending venue. */
  deposit(input: DepositInput): Promise<DepositResult> {
    const body = withKey(input);
    return this.c.result(this.c.api.POST('/deposit', { body }), body.idempotency_key);
  }

  /** Withdraws from an allow-listed lending venue. */
  withdraw(input: WithdrawInput): Promise<WithdrawResult> {
    const body = withKey(input);
    return this.c.result(this.c.api.POST('/withdraw', { body }), body.idempotency_key);
  }

  /**
   * Pays an HTTP resource that answers 402 (x402, scheme exact on Solana) through the service, as a
   * transfer to its payee under the agent's limits, the price at most `max` (docs/x402.md); the answer
   * holds the resource's reply (`resource`: status, content-type, body as text).
   */
  pay(url: string, input: PayInput): Promise<PayResult> {
    const { max, ...rest } = input;
    const body = withKey({ ...rest, url, max_amount: max });
    return this.c.result(this.c.api.POST('/x402/pay', { body }), body.idempotency_key);
  }

  /**
   * A `fetch` that pays x402 resources through the service, as @x402/fetch's wrapper pays them with a
   * wallet: the request is sent as it is (with `fetchImpl`); a 402 is paid with `pay` (the same method,
   * headers and text body; the price at most `max`) and answered with the resource's reply to the paid
   * request, as a Response. A refused payment throws TokenOpsError with its code.
   */
  paidFetch(options: {
    max: PayInput['max'];
    fetchImpl?: typeof fetch;
  }): (input: string | URL, init?: RequestInit) => Promise<Response> {
    const send = options.fetchImpl ?? fetch;
    return async (input, init = {}) => {
      const first = await send(input, init);
      if (first.status !== 402) return first;
      await first.body?.cancel();
      const method = (init.method ?? 'GET').toUpperCase() as NonNullable<PayInput['method']>;
      const headers = Object.fromEntries(new Headers(init.headers).entries());
      const body = typeof init.body === 'string' ? init.body : undefined;
      const paid = await this.pay(String(input), {
        max: options.max,
        method,
        ...(Object.keys(headers).length > 0 && { headers }),
        ...(body !== undefined && { body }),
      });
      const reply = paid.resource;
      if (!reply) throw new Error(`paid (${paid.tx_sig}), but the resource's answer was lost`);
      const status = reply.status;
      return new Response([204, 205, 304].includes(status) ? null : reply.body, {
        status,
        headers: { ...reply.headers, 'x-tokenops-tx-sig': paid.tx_sig },
      });
    };
  }

  /** Dry-runs a transfer under the current limits: `would_succeed`, and the `reason` code when not. */
  simulate(input: SimulateInput): Promise<SimulateResult> {
    return this.c.result(this.c.api.POST('/intents/simulate', { body: input }));
  }

  // ---- state --------------------------------------------------------------------------------------

  /** Balances by token symbol, and the limit counters. */
  balance(): Promise<Balance> {
    return this.c.result(this.c.api.GET('/balance'));
  }

  /** The limits, what remains of them, and the group. */
  limits(): Promise<Limits> {
    return this.c.result(this.c.api.GET('/limits'));
  }

  /** The most recent confirmed intents of the last 24 hours, newest first (`limit` 1-100, default 20). */
  async history(query: { limit?: number } = {}): Promise<HistoryEntry[]> {
    const page = await this.c.result(this.c.api.GET('/history', { params: { query } }));
    return page.transactions;
  }

  // ---- webhooks -----------------------------------------------------------------------------------

  /** Subscribes an HTTPS URL to this agent's events; `signing_secret` is shown once. */
  createWebhook(input: WebhookInput): Promise<WebhookCreated> {
    // Not retried but on 429: a retry after a lost answer would subscribe twice.
    return this.c.result(this.c.api.POST('/webhooks', { body: input, ...this.c.once }));
  }

  /** This agent's subscriptions. */
  async listWebhooks(): Promise<WebhookSubscription[]> {
    return (await this.c.result(this.c.api.GET('/webhooks'))).webhooks;
  }

  /** Deletes one of this agent's subscriptions (not retried but on 429, like every removal). */
  deleteWebhook(webhookId: string): Promise<Schemas['WebhookDeletedResponse']> {
    const params = { path: { webhook: webhookId } };
    return this.c.result(this.c.api.DELETE('/webhooks/{webhook}', { params, ...this.c.once }));
  }
}
