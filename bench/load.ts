/** Load over HTTP for the benchmarks: autocannon runs, and funded agents set up through the API. */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { createLogger } from '@tokenops/shared';
import { startEmbedded } from '../services/api/src/embedded';
import { Client, signIn, type Operator } from '../services/api/src/testing/harness';

/** One autocannon run (progress on the terminal), to its result. */
export function load(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
    autocannon.track(instance, { renderResultsTable: false, renderLatencyTable: false });
  });
}

export interface BenchAgent {
  id: string;
  key: string;
}

export async function fundedAgents(client: Client, count: number): Promise<BenchAgent[]> {
  return (await fundedGroup(client, count)).agents;
}

/** A group with `count` agents funded with 1,000,000 USDC each; its operator and id too. */
export async function fundedGroup(
  client: Client,
  count: number,
): Promise<{ operator: Operator; group: string; agents: BenchAgent[] }> {
  const operator = await signIn(client);
  const group = (
    await client.call<{ group_config_pda: string }>('POST', '/api/v1/orchestrator/groups', {
      token: operator.token,
      body: { per_tx_limit: 1000, daily_limit: 1_000_000, hourly_tx_cap: 100_000 },
    })
  ).body.group_config_pda;
  const agents: BenchAgent[] = [];
  for (let i = 0; i < count; i++) {
    const inv = (
      await client.call<{ invitation_code: string; agent_wallet_pda: string }>(
        'POST',
        `/api/v1/orchestrator/groups/${group}/invitations`,
        { token: operator.token, body: {} },
      )
    ).body;
    await client.call('POST', '/api/v1/dev/airdrop', {
      token: operator.token,
      body: { to: inv.agent_wallet_pda, amount: 1_000_000 },
    });
    const reg = (
      await client.call<{ api_key: string }>('POST', '/api/v1/register', {
        body: { invitation_code: inv.invitation_code },
      })
    ).body;
    agents.push({ id: inv.agent_wallet_pda, key: reg.api_key });
  }
  return { operator, group, agents };
}

/** A transfer request of the i-th agent to the next one, with a key never used before. */
export function transferRequest(agents: BenchAgent[], tag: string) {
  let n = 0;
  return () => {
    const i = n++;
    const from = agents[i % agents.length]!;
    const to = agents[(i + 1) % agents.length]!;
    return {
      method: 'POST' as const,
      path: '/api/v1/transfer',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${from.key}` },
      body: JSON.stringify({ to: to.id, amount: 1, idempotency_key: `${tag}-${i}` }),
    };
  };
}

/** The embedded service as the benchmarks load it: in memory, silent, no per-agent rate limit in the way. */
export const benchService = () =>
  startEmbedded({
    port: 0,
    keyEncryptionKey: randomBytes(32),
    jwtSecret: randomBytes(32),
    logger: createLogger('silent'),
    rateLimitPerMinute: 100_000_000, // the load is many requests a minute per agent, on purpose
  });
