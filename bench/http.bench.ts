/**
 * The agent contract over HTTP on the embedded default (autocannon, loopback, same process):
 * confirmed transfers/s with many agents in parallel, and GET /limits beside a bare Express handler
 * that answers the same JSON, in the same run.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import { Client } from '../services/api/src/testing/harness';
import { benchService, fundedAgents, load as run, transferRequest as nextTransfer } from './load';
import { report } from './harness';

export async function httpBench(): Promise<string> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const service = await benchService();
  const client = new Client(service.url);
  const agents = await fundedAgents(client, 32);
  const transferRequest = nextTransfer(agents, 'bench');
  // Warm-up, then the measured run.
  await run({
    url: service.url,
    connections: 32,
    amount: 300,
    requests: [{ setupRequest: (r) => ({ ...r, ...transferRequest() }) }],
  });
  const transfers = await run({
    url: service.url,
    connections: 32,
    amount: Math.round(3000 * scale),
    requests: [{ setupRequest: (r) => ({ ...r, ...transferRequest() }) }],
  });
  const confirmed = transfers['2xx'];
  const transferRate = confirmed / (transfers.duration || 1);

  const limitsBody = JSON.stringify(
    (await client.call('GET', '/api/v1/limits', { token: agents[0]!.key })).body,
  );
  const bare = express();
  bare.get('/api/v1/limits', (_req, res) => void res.type('application/json').send(limitsBody));
  const bareServer = bare.listen(0, '127.0.0.1');
  await new Promise((r) => bareServer.once('listening', r));
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`;
  const seconds = Math.max(2, Math.round(5 * scale));
  const headers = { authorization: `Bearer ${agents[0]!.key}` };
  await run({ url: `${bareUrl}/api/v1/limits`, connections: 16, duration: 1 });
  const bareRun = await run({ url: `${bareUrl}/api/v1/limits`, connections: 16, duration: seconds });
  await run({ url: `${service.url}/api/v1/limits`, connections: 16, duration: 1, headers });
  const limitsRun = await run({
    url: `${service.url}/api/v1/limits`,
    connections: 16,
    duration: seconds,
    headers,
  });
  bareServer.close();
  await service.close();

  return report('Agent contract over HTTP (embedded default, autocannon on loopback)', [
    {
      name: `confirmed transfers/s (32 agents, 32 connections, ${confirmed} confirmed, ${transfers.non2xx} other)`,
      value: transferRate,
      unit: 'tx/s',
      target: '>= 300 tx/s',
    },
    { name: 'transfer latency p50', value: transfers.latency.p50, unit: 'ms' },
    { name: 'transfer latency p99', value: transfers.latency.p99, unit: 'ms' },
    {
      name: 'GET /api/v1/limits',
      value: limitsRun.requests.average,
      unit: 'req/s',
      baseline: { name: 'bare Express, same JSON', value: bareRun.requests.average },
      target: '>= 0.6x bare',
    },
  ]);
}
