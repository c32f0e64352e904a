/**
 * End-to-end harness: the service on free ports of loopback, talked to over real HTTP. By default the
 * embedded service, which checks every answer against the contract itself (checkResponses). In the
 * `topology` Jest project the same suite runs on the server topology (separate processes, started
 * once by its global setup): the client then spreads its calls over the API instances in turn.
 */
import bs58 from 'bs58';
import { randomBytes } from 'node:crypto';
import {
  generateSigner,
  type Context,
  type ReadModelStore,
  type RecordedEvent,
  type Signer,
} from '@tokenops/shared';
import { PostgresEventStore, RpcChain, serverSql, type Sql } from '@tokenops/shared/adapters';
import { createLogger } from '@tokenops/shared/process';
import { Proc, freePort } from './topology';
import { CHAIN_SEED, startEmbedded, type EmbeddedOptions } from '@tokenops/api/embedded';
import type { TlsMaterial } from './tls';
import { databaseTemplate } from './database-template';
import { wholeLog } from './log';

export { until } from './time';

export interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export class Client {
  private turn = 0;
  private readonly urls: string[];

  constructor(urls: string | string[]) {
    this.urls = Array.isArray(urls) ? urls : [urls];
  }

  /** The first instance (the only one of the embedded service). */
  get url(): string {
    return this.urls[0]!;
  }

  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: { body?: unknown; token?: string; headers?: Record<string, string>; raw?: string } = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const base = this.urls[this.turn++ % this.urls.length]!;
    const res = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined && { body }) });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, headers: res.headers };
  }
}

export interface Operator {
  wallet: Signer;
  token: string;
}

export async function signIn(client: Client, wallet: Signer = generateSigner()): Promise<Operator> {
  const challenge = await client.call<{ message: string }>('POST', '/api/v1/orchestrator/auth/challenge', {
    body: { wallet: wallet.address },
  });
  const signature = bs58.encode(wallet.sign(Buffer.from(challenge.body.message, 'utf8')));
  const token = await client.call<{ token: string }>('POST', '/api/v1/orchestrator/auth/token', {
    body: { wallet: wallet.address, message: challenge.body.message, signature },
  });
  if (token.status !== 200) throw new Error(`sign-in failed: ${JSON.stringify(token.body)}`);
  return { wallet, token: token.body.token };
}

/** What the tests reach past HTTP: the URL, the chain and the log the service uses. */
export interface Service {
  url: string;
  ctx: Pick<Context, 'chain' | 'store'>;
  /** The read models, on the embedded service (in Redis on the topology, not reached from here). */
  views?: ReadModelStore;
  /** The chain's seed (CHAIN_SEED): the local pools' and venue's keys derive from it. */
  seed: string;
  /** The chain node's JSON-RPC URL on the topology (a chain other suites share); absent when embedded. */
  rpcUrl?: string;
  /** The topology's folder (its processes' logs, and what its suites keep for the run's later ones). */
  folder?: string;
  /** Embedded with `chainRpc`: the embedded chain's JSON-RPC URL (the service serves it, as `npm start` does). */
  chainRpcUrl?: string;
  /** The event log's SQL (PGlite embedded, PostgreSQL on the topology), to change it behind the service's back. */
  sql: Sql;
  /** The key operator tokens are signed with (HS256): a test makes one that expires soon with it. */
  jwtSecret: Uint8Array;
  /** Stops the projection (embedded only): the views stay where they are, as with their projector dead. */
  stopProjection?: () => Promise<void>;
}

export interface World {
  service: Service;
  client: Client;
  operator: Operator;
  groupId: string;
  /** An external recipient allow-listed with a budget. */
  vendor: string;
  /** Invites, funds (airdrop) and registers an agent; its key and wallet. */
  agent(limits?: Record<string, unknown>, funds?: number): Promise<{ id: string; key: string }>;
  /**
   * An allow-list entry of the group (the request's body), proposed and signed by the operator as the
   * CLI does: the entry as its execution answers it.
   */
  allow(entry: {
    address: string;
    type: 1 | 2;
    label?: string;
    approved_amount?: number | string;
    ttl_seconds?: number;
    daily_limit?: number | string | null;
  }): Promise<Record<string, unknown>>;
  /**
   * A fleet webhook of the group (the request's body), proposed and signed by the operator as the
   * CLI does: its id and signing secret, as the execution answers them.
   */
  subscribe(body: { url: string; event_types: readonly string[] }): Promise<FleetWebhook>;
  /** The whole log, with everything that committed before the call (log.ts). */
  log(): Promise<RecordedEvent[]>;
  close(): Promise<void>;
}

export interface WorldOptions {
  vendorBudget?: number;
  outcomeTimeoutMs?: number;
  rateLimitPerMinute?: number;
  /**
   * Failed authentications a client address may make in a minute. Every test client is 127.0.0.1, so
   * the harness's default is high (HARNESS_UNAUTHENTICATED_LIMIT): a suite that needs the limit sets it.
   */
  unauthenticatedRateLimitPerMinute?: number;
  /**
   * Requests a client address may make in a minute to the public reads, and to the sign-in routes
   * (registration, a wallet's sign-in): high by default likewise (HARNESS_ADDRESS_LIMIT), since every
   * agent and operator of a suite signs in and registers from 127.0.0.1; a suite that needs a limit sets it.
   */
  publicRateLimitPerMinute?: number;
  signInRateLimitPerMinute?: number;
  /** Requests a signed-in wallet may make in a minute to the operator routes (the catalogue's default when absent). */
  operatorRateLimitPerMinute?: number;
  /** Proxies in front of the API whose X-Forwarded-For names the client (TRUST_PROXY_HOPS; none when absent). */
  trustProxyHops?: number;
  /** Webhook delivery settings of the embedded service (a test's receiver CA, its allowed hosts). */
  webhooks?: EmbeddedOptions['webhooks'];
  /** The embedded service serves its chain over JSON-RPC (CHAIN_RPC_PORT), on a free port. */
  chainRpc?: boolean;
  /**
   * Embedded: PGlite on a thread of its own, as `npm start` runs it. Off unless asked: a world on
   * the thread costs about 0.5 s more CPU to start, and suites start hundreds (with every world on
   * it, `.ci/run`'s legs took 1,107 and 1,088 s against 956 and 1,006 s without the thread); the
   * transfer, spends, concurrency, webhook delivery and fuzz suites ask for it, and
   * pglite.int.spec.ts runs the adapter's tests on both.
   */
  databaseThread?: boolean;
  /**
   * Embedded: the executor's wiring (its compute budget, say), in place of the catalogue's defaults.
   * The topology's executors run with the stack's settings.
   */
  executor?: EmbeddedOptions['executor'];
}

/** The harness's allowance of failed authentications per minute, unless a world asks for another. */
export const HARNESS_UNAUTHENTICATED_LIMIT = 100_000;
/** The harness's allowance of requests per client address and minute (public reads, sign-in), unless a world asks for another. */
export const HARNESS_ADDRESS_LIMIT = 1_000_000;

/** Where a running topology is: its API instances and the environment its processes share. */
export interface StackInfo {
  apis: string[];
  env: NodeJS.ProcessEnv;
  logDir: string;
  /** The certificate webhook receivers use: its CA is the delivery workers' WEBHOOK_CA_FILE. */
  webhookTls?: TlsMaterial;
}

/** The server topology's processes (from the `topology` project's global setup), if this run is on it. */
function stack(): StackInfo | undefined {
  return process.env.TOKENOPS_STACK && (globalThis as { TOPOLOGY?: boolean }).TOPOLOGY
    ? JSON.parse(process.env.TOKENOPS_STACK)
    : undefined;
}

/** Where test webhook receivers listen: a loopback address the services are told to allow. */
export const RECEIVER_HOST = '127.0.0.2';

/** On the server topology: the TLS material its delivery workers trust for test receivers. */
export const stackWebhookTls = (): TlsMaterial | undefined => stack()?.webhookTls;

/** The service under test: embedded, or API instances of the running topology. */
async function startService(
  options: WorldOptions,
  topology: StackInfo | undefined,
): Promise<{ service: Service; urls: string[]; close(): Promise<void> }> {
  if (!topology) {
    const jwtSecret = randomBytes(32);
    const service = await startEmbedded({
      port: 0,
      databaseTemplate: await databaseTemplate(),
      keyEncryptionKey: randomBytes(32),
      jwtSecret,
      logger: createLogger((process.env.HARNESS_LOG_LEVEL as 'silent') ?? 'silent'),
      checkResponses: true,
      ...(options.outcomeTimeoutMs && { outcomeTimeoutMs: options.outcomeTimeoutMs }),
      ...(options.rateLimitPerMinute && { rateLimitPerMinute: options.rateLimitPerMinute }),
      unauthenticatedRateLimitPerMinute:
        options.unauthenticatedRateLimitPerMinute ?? HARNESS_UNAUTHENTICATED_LIMIT,
      publicRateLimitPerMinute: options.publicRateLimitPerMinute ?? HARNESS_ADDRESS_LIMIT,
      signInRateLimitPerMinute: options.signInRateLimitPerMinute ?? HARNESS_ADDRESS_LIMIT,
      ...(options.operatorRateLimitPerMinute && {
        operatorRateLimitPerMinute: options.operatorRateLimitPerMinute,
      }),
      ...(options.trustProxyHops && { trustProxyHops: options.trustProxyHops }),
      ...(options.webhooks && { webhooks: options.webhooks }),
      ...(options.chainRpc && { chainRpcPort: 0 }),
      databaseThread: options.databaseThread ?? false,
      ...(options.executor && { executor: options.executor }),
    });
    return {
      service: {
        url: service.url,
        ctx: service.ctx,
        views: service.views,
        seed: CHAIN_SEED,
        ...(service.chainRpcUrl && { chainRpcUrl: service.chainRpcUrl }),
        sql: service.sql,
        jwtSecret,
        stopProjection: service.stopProjection,
      },
      urls: [service.url],
      close: () => service.close(),
    };
  }
  // Settings of the API differ from the shared instances': two more instances with them.
  const own: Proc[] = [];
  let urls = topology.apis;
  const settings = {
    ...(options.outcomeTimeoutMs && { OUTCOME_TIMEOUT_MS: String(options.outcomeTimeoutMs) }),
    ...(options.rateLimitPerMinute && { RATE_LIMIT_PER_MINUTE: String(options.rateLimitPerMinute) }),
    ...(options.unauthenticatedRateLimitPerMinute && {
      UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: String(options.unauthenticatedRateLimitPerMinute),
    }),
    ...(options.publicRateLimitPerMinute && {
      PUBLIC_RATE_LIMIT_PER_MINUTE: String(options.publicRateLimitPerMinute),
    }),
    ...(options.signInRateLimitPerMinute && {
      SIGN_IN_RATE_LIMIT_PER_MINUTE: String(options.signInRateLimitPerMinute),
    }),
    ...(options.operatorRateLimitPerMinute && {
      OPERATOR_RATE_LIMIT_PER_MINUTE: String(options.operatorRateLimitPerMinute),
    }),
    ...(options.trustProxyHops && { TRUST_PROXY_HOPS: String(options.trustProxyHops) }),
  };
  if (Object.keys(settings).length > 0) {
    const env = { ...topology.env, ...settings };
    for (let i = 0; i < 2; i++)
      own.push(
        new Proc(`api-own-${randomBytes(3).toString('hex')}`, 'api', await freePort(), env, topology.logDir),
      );
    await Promise.all(own.map((p) => p.start().ready()));
    urls = own.map((p) => p.url);
  }
  const sql = await serverSql({
    connectionString: topology.env.EVENTSTORE_URL!,
    schema: topology.env.EVENTSTORE_SCHEMA!,
    max: 2,
  });
  const store = await PostgresEventStore.open(sql);
  const chain = RpcChain.local(topology.env.SOLANA_RPC_URL!, topology.env.CHAIN_SEED!);
  return {
    service: {
      url: urls[0]!,
      ctx: { store, chain },
      seed: topology.env.CHAIN_SEED!,
      rpcUrl: topology.env.SOLANA_RPC_URL!,
      folder: topology.logDir,
      sql,
      jwtSecret: Buffer.from(topology.env.JWT_SECRET!, 'base64'),
    },
    urls,
    close: async () => {
      await Promise.all(own.map((p) => p.kill('SIGTERM')));
      await store.close();
      await chain.close(); // its WebSocket, once a test sent a transaction through it
    },
  };
}

/** What an invitation's execution answers: the agent's wallet, and its one-time code. */
export interface Invitation {
  agent_wallet_pda: string;
  invitation_code: string;
  expires_at: string;
  limits: Record<string, unknown>;
}

/**
 * An agent invited by an admin: the proposal (`202`) and the admin's signature that executes it, as
 * the CLI and the console make them. Its answer's `body` is the invitation (the code shown once).
 */
export async function invitation(client: Client, admin: Operator, groupId: string, body: unknown = {}) {
  const signed = await enact(
    client,
    [admin],
    'POST',
    `/api/v1/orchestrator/groups/${groupId}/invitations`,
    body,
  );
  if (signed.status !== 200 || signed.body.status !== 'executed')
    throw new Error(`invite failed: ${signed.status} ${JSON.stringify(signed.body)}`);
  return { ...signed, body: signed.body.result as Invitation };
}

/** A fresh operator, group and allow-listed vendor on the service (embedded, or the given topology). */
export async function startWorld(options: WorldOptions = {}, topology = stack()): Promise<World> {
  const { service, urls, close } = await startService(options, topology);
  const client = new Client(urls);
  const operator = await signIn(client);
  const group = await client.call<{ group_config_pda: string }>('POST', '/api/v1/orchestrator/groups', {
    token: operator.token,
    body: {},
  });
  const groupId = group.body.group_config_pda;
  const vendor = generateSigner().address;
  const listed = await enact(client, [operator], 'POST', `/api/v1/orchestrator/groups/${groupId}/whitelist`, {
    address: vendor,
    type: 1,
    label: 'vendor',
    approved_amount: options.vendorBudget ?? 10_000,
    ttl_seconds: 86_400,
  });
  if (listed.body.status !== 'executed') throw new Error(`allow-list failed: ${JSON.stringify(listed.body)}`);
  return {
    service,
    client,
    operator,
    groupId,
    vendor,
    async agent(limits = {}, funds = 1_000) {
      const inv = await invitation(client, operator, groupId, limits);
      if (funds > 0)
        await client.call('POST', '/api/v1/dev/airdrop', {
          token: operator.token,
          body: { to: inv.body.agent_wallet_pda, amount: funds },
        });
      const reg = await client.call<{ api_key: string; agent_wallet_pda: string }>(
        'POST',
        '/api/v1/register',
        { body: { invitation_code: inv.body.invitation_code } },
      );
      if (reg.status !== 200) throw new Error(`register failed: ${JSON.stringify(reg.body)}`);
      return { id: reg.body.agent_wallet_pda, key: reg.body.api_key };
    },
    async allow(entry) {
      const added = await enact(
        client,
        [operator],
        'POST',
        `/api/v1/orchestrator/groups/${groupId}/whitelist`,
        entry,
      );
      if (added.body.status !== 'executed')
        throw new Error(`allow-list failed: ${JSON.stringify(added.body)}`);
      return added.body.result as Record<string, unknown>;
    },
    async subscribe(body) {
      const path = `/api/v1/orchestrator/groups/${groupId}/webhooks`;
      const made = await enact(client, [operator], 'POST', path, body);
      if (made.body.status !== 'executed')
        throw new Error(`subscription failed: ${JSON.stringify(made.body)}`);
      return made.body.result as FleetWebhook;
    },
    log: () => wholeLog(service),
    close,
  };
}

/**
 * A suite on its own embedded world (never the topology: it reaches into the service's context),
 * started before its tests and closed after them; Jest's mocks restored after each test.
 */
export function embeddedSuite(options: WorldOptions = {}): { world: () => World; ctx: () => Context } {
  let world: World | undefined;
  beforeAll(async () => {
    world = await startWorld(options, undefined);
  });
  afterAll(async () => world?.close());
  afterEach(() => jest.restoreAllMocks());
  const started = () => {
    if (!world) throw new Error('the embedded world is not started (use it inside a test)');
    return world;
  };
  return { world: started, ctx: () => started().service.ctx as Context };
}

export const key = () => `k-${randomBytes(8).toString('hex')}`;

/** Parallel spends' answers counted by outcome: `confirmed` for a 200, else the error code. */
export function tally(replies: readonly { status: number; body: Record<string, unknown> }[]) {
  const out: Record<string, number> = {};
  for (const r of replies) {
    const k = r.status === 200 ? 'confirmed' : String(r.body.error);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** The approval id a held spend's `approval_required` message names. */
export const approvalIdIn = (message: unknown): string => {
  const found = /approval (\S+) until/.exec(String(message));
  if (!found) throw new Error(`no approval named in: ${String(message)}`);
  return found[1]!;
};

/** A fleet webhook as its proposal's execution answers it. */
export interface FleetWebhook {
  webhook_id: string;
  signing_secret: string;
  url: string;
  event_types: string[];
}

/** A proposal as the operator surface answers it (the fields a test reads). */
export interface ProposalReply {
  proposal_id: string;
  status: string;
  message: string;
  action: string;
  params: Record<string, unknown>;
  signatures: { wallet: string; signed_at: string }[];
  signatures_required: number;
  result: unknown;
  reason: string | null;
}

/** An admin signs a proposal's message with its wallet: what the CLI and the console do for one. */
export const signProposal = (
  client: Client,
  admin: Operator,
  proposal: { proposal_id: string; message: string },
) =>
  client.call<ProposalReply>('POST', `/api/v1/orchestrator/proposals/${proposal.proposal_id}/sign`, {
    token: admin.token,
    body: { signature: bs58.encode(admin.wallet.sign(Buffer.from(proposal.message, 'utf8'))) },
  });

/**
 * A change that may be a proposal: asked by the first admin; when the answer is `202` (a proposal),
 * each admin in turn signs its message, as the CLI and the console do for one. The last answer: the
 * change's own when it applied at once, the last signature's otherwise (executed, with its `result`,
 * once the quorum signed).
 */
export async function enact(
  client: Client,
  admins: readonly Operator[],
  method: string,
  path: string,
  body?: unknown,
) {
  const asked = await client.call<ProposalReply>(method, path, {
    token: admins[0]!.token,
    ...(body !== undefined && { body }),
  });
  if (asked.status !== 202) return asked;
  let answer = asked;
  for (const admin of admins) answer = await signProposal(client, admin, asked.body);
  return answer;
}
