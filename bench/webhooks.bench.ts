/**
 * Webhook deliveries/s over HTTPS on loopback, to a receiver in a child process answering 200: a raw
 * undici client (one keep-alive Agent) posting the bodies, the baseline, beside `WebhookSender.send`
 * with `signatureHeaders` for each body (signing, the SSRF guard and the timeout included), in the
 * same run, with the same ~600-byte JSON bodies and the same concurrency. Beside the rates, this
 * process's CPU time per delivery (user + system; the receiver's is not in it), a steadier figure than
 * a rate on a shared machine.
 *
 * Another line (the delivery worker through the queue, say) is one more `WebhookBenchLine` passed to
 * `webhooksBench`; the receiver, the bodies and the measuring are exported for it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Agent } from 'undici';
import { newSigningSecret, signatureHeaders } from '@tokenops/shared';
import { WebhookSender } from '@tokenops/shared/adapters';
import { testCertificates } from '@tokenops/testing/tls';
import { measure, report, type Figure } from './harness';

export interface BenchReceiver {
  /** `https://127.0.0.1:<port>/hooks`. */
  url: string;
  /** The CA its certificate chains to (PEM): a client must trust it. */
  ca: string;
  /** Requests it has answered so far. */
  count(): Promise<number>;
  close(): Promise<void>;
}

/** Starts the benchmark's HTTPS receiver in a child process (bench/webhook-receiver.ts). */
export async function startBenchReceiver(): Promise<BenchReceiver> {
  const tls = await testCertificates();
  const child: ChildProcess = fork(join(__dirname, 'webhook-receiver.ts'), [], {
    execArgv: ['-r', 'ts-node/register/transpile-only'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const reply = <T>(key: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (message: Record<string, T>) => {
        if (!(key in message)) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message[key]!);
      };
      const onExit = (code: number | null) => reject(new Error(`the bench receiver exited (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const started = reply<number>('port');
  child.send({ cert: tls.cert, key: tls.key });
  const port = await started;
  return {
    url: `https://127.0.0.1:${port}/hooks`,
    ca: tls.ca,
    count() {
      const answer = reply<number>('count');
      child.send('count');
      return answer;
    },
    close() {
      if (child.exitCode !== null) return Promise.resolve();
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send('stop');
      return exited;
    },
  };
}

/** `count` event payloads of about 600 bytes of JSON, each different (ids, amounts, times). */
export function webhookBodies(count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      event: 'transfer.confirmed',
      event_id: `evt_${i.toString().padStart(12, '0')}_${'0123456789abcdef'.repeat(2)}`,
      agent_wallet_pda: '7YttLkHDoNj9wyDur5pM1ejNaAvT9X4eqaYcHQqtj2G5',
      group_config_pda: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
      tx_signature: `5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQU${i % 10}`,
      amount: `${(i % 997) + 1}.250000`,
      fee: '0.001250',
      recipient: 'GpMZbSM2GgvTKHJirzeGfMFoaZ8UR2X7F4v8vHTvxFbL',
      memo: `invoice ${i} for the agent's monthly market-data subscription, paid on schedule`,
      task_id: `task-${i}`,
      confirmed_at: new Date(1_795_000_000_000 + i * 1_000).toISOString(),
    }),
  );
}

/** One way of delivering a body; true when the receiver took it (2xx). */
export type Deliver = (body: string, i: number) => Promise<boolean>;

export interface WebhookBenchLine {
  name: string;
  /** A line that measures a part alone and posts nothing (the receiver's count leaves it out). */
  sendsNothing?: true;
  /** Builds the deliverer for this receiver; `close` runs after its measured run. */
  setup(receiver: BenchReceiver): Promise<{ deliver: Deliver; close(): Promise<void> }>;
}

/** Deliveries/s of `deliver` over `bodies`, `concurrency` in flight; throws if any was not taken. */
export async function measureDeliveries(
  label: string,
  bodies: readonly string[],
  concurrency: number,
  deliver: Deliver,
): Promise<number> {
  let failed = 0;
  const rate = await measure(label, bodies.length, concurrency, async (_w, i) => {
    if (!(await deliver(bodies[i]!, i))) failed++;
  });
  if (failed > 0) throw new Error(`${label}: ${failed} of ${bodies.length} deliveries failed`);
  return rate;
}

/** The baseline: a raw undici Agent (keep-alive), posting the body with a content type only. */
export const rawUndici: WebhookBenchLine = {
  name: 'raw undici Agent (keep-alive), POST only',
  async setup(receiver) {
    const agent = new Agent({ connect: { ca: receiver.ca } });
    const { origin, pathname } = new URL(receiver.url);
    return {
      async deliver(body) {
        const res = await agent.request({
          origin,
          path: pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        await res.body.dump();
        return res.statusCode >= 200 && res.statusCode < 300;
      },
      close: () => agent.close(),
    };
  },
};

/** `WebhookSender.send` with `signatureHeaders` of each body (two header styles, one secret). */
export const webhookSender: WebhookBenchLine = {
  name: 'WebhookSender.send + signatureHeaders',
  async setup(receiver) {
    const sender = new WebhookSender({ ca: receiver.ca, allowedPrivateHosts: [new URL(receiver.url).host] });
    const secrets = [newSigningSecret()];
    return {
      async deliver(body, i) {
        const headers = signatureHeaders({
          id: `msg_${i}`,
          event: 'transfer.confirmed',
          timestamp: Math.floor(Date.now() / 1000),
          body,
          secrets,
        });
        const attempt = await sender.send({ url: receiver.url, headers, body });
        return attempt.outcome === 'delivered';
      },
      close: () => sender.close(),
    };
  },
};

export async function webhooksBench(extra: WebhookBenchLine[] = []): Promise<string> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const concurrency = 64;
  const total = Math.max(1_000, Math.round(20_000 * scale));
  const bodies = webhookBodies(total);
  const warmUp = bodies.slice(0, 1_000);
  const receiver = await startBenchReceiver();
  const lines: { name: string; rate: number; cpuUs: number }[] = [];
  try {
    for (const line of [rawUndici, webhookSender, ...extra]) {
      const { deliver, close } = await line.setup(receiver);
      try {
        await measureDeliveries(`${line.name} (warm-up)`, warmUp, concurrency, deliver);
        const cpu = process.cpuUsage();
        const rate = await measureDeliveries(line.name, bodies, concurrency, deliver);
        const used = process.cpuUsage(cpu);
        lines.push({ name: line.name, rate, cpuUs: (used.user + used.system) / bodies.length });
      } finally {
        await close();
      }
    }
    const answered = await receiver.count();
    const sending = [rawUndici, webhookSender, ...extra].filter((l) => !l.sendsNothing).length;
    const expected = (bodies.length + warmUp.length) * sending;
    if (answered !== expected)
      throw new Error(`the receiver answered ${answered} requests, expected ${expected}`);
  } finally {
    await receiver.close();
  }
  const [raw] = lines;
  const bytes = Math.round(bodies.reduce((n, b) => n + b.length, 0) / bodies.length);
  const figures: Figure[] = [
    ...lines.map((l, i) => ({
      name: i === 0 ? `${l.name}, ${total} bodies` : l.name,
      value: l.rate,
      unit: 'deliveries/s',
      ...(i > 0 && { baseline: { name: 'raw undici', value: raw!.rate } }),
    })),
    ...lines.map((l, i) => ({
      name: `client CPU per delivery: ${l.name}`,
      value: l.cpuUs,
      unit: 'µs',
      ...(i > 0 && { baseline: { name: 'raw undici', value: raw!.cpuUs } }),
    })),
  ];
  return report(
    `Webhook deliveries over HTTPS on loopback (receiver in a child process answering 200, ${concurrency} in flight, ${bytes}-byte JSON bodies)`,
    figures,
  );
}
