/**
 * End-to-end harness: the embedded service on a free port of loopback, talked to over real HTTP.
 * Every answer is checked against the contract by the service itself (checkResponses).
 */
import bs58 from 'bs58';
import { randomBytes } from 'node:crypto';
import { generateSigner, type Signer } from '@tokenops/shared';
import { startEmbedded, type Embedded } from '../embedded';
import { createLogger } from '../http/logger';

export interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export class Client {
  constructor(readonly url: string) {}

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
    const res = await fetch(`${this.url}${path}`, { method, headers, ...(body !== undefined && { body }) });
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

export interface World {
  service: Embedded;
  client: Client;
  operator: Operator;
  groupId: string;
  /** An external recipient allow-listed with a budget. */
  vendor: string;
  /** Invites, funds (airdrop) and registers an agent; its key and wallet. */
  agent(limits?: Record<string, unknown>, funds?: number): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

export async function startWorld(
  options: { vendorBudget?: number; outcomeTimeoutMs?: number } = {},
): Promise<World> {
  const service = await startEmbedded({
    port: 0,
    keyEncryptionKey: randomBytes(32),
    jwtSecret: randomBytes(32),
    logger: createLogger('silent'),
    checkResponses: true,
    ...(options.outcomeTimeoutMs && { outcomeTimeoutMs: options.outcomeTimeoutMs }),
  });
  const client = new Client(service.url);
  const operator = await signIn(client);
  const group = await client.call<{ group_config_pda: string }>('POST', '/api/v1/orchestrator/groups', {
    token: operator.token,
    body: {},
  });
  const groupId = group.body.group_config_pda;
  const vendor = generateSigner().address;
  await client.call('POST', `/api/v1/orchestrator/groups/${groupId}/whitelist`, {
    token: operator.token,
    body: {
      address: vendor,
      type: 1,
      label: 'vendor',
      approved_amount: options.vendorBudget ?? 10_000,
      ttl_seconds: 86_400,
    },
  });
  return {
    service,
    client,
    operator,
    groupId,
    vendor,
    async agent(limits = {}, funds = 1_000) {
      const inv = await client.call<{ invitation_code: string; agent_wallet_pda: string }>(
        'POST',
        `/api/v1/orchestrator/groups/${groupId}/invitations`,
        { token: operator.token, body: limits },
      );
      if (inv.status !== 201) throw new Error(`invite failed: ${JSON.stringify(inv.body)}`);
      if (funds > 0)
        await client.call('POST', '/api/v1/dev/airdrop', {
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
    close: () => service.close(),
  };
}

export const key = () => `k-${randomBytes(8).toString('hex')}`;
