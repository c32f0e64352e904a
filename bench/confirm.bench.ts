/**
 * Confirmation over JSON-RPC against the local chain node (its own process, as in the server
 * topology): the RPC chain adapter confirming by signature subscription (its WebSocket), beside the
 * same transfers confirmed by polling the signature's status every 200 ms (the adapter before), in
 * the same run. One transfer at a time for the latency, then 16 at once for the rate.
 *
 * This node executes a transaction while it answers sendTransaction, so a poll's first look already
 * finds it: the 200 ms never pass there. On a cluster a transaction lands after the send's answer;
 * the last figures stand for that: the confirmation starts waiting, the transaction is sent 0 to
 * 400 ms later, and the lag is from the moment it landed (the send answered) to the moment the
 * waiter knew.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@solana/web3.js';
import { Confirmations } from '@tokenops/shared/adapters';
import { RpcChain, confirmationSource } from '@tokenops/shared/adapters';
import { JsonRpcClient, PubsubClient } from '@tokenops/shared/adapters';
import { generateSigner } from '@tokenops/shared';
import { prepareTransfer } from '@tokenops/shared';
import type { SignedTransaction } from '@tokenops/shared';
import { Proc, freePort } from '@tokenops/testing/topology';
import { measure, report } from './harness';

const SEED = 'confirm-bench';

export async function confirmBench(): Promise<string> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const logDir = mkdtempSync(join(tmpdir(), 'confirm-bench-'));
  const env = { ...process.env, CHAIN_SEED: SEED, DATA_DIR: join(logDir, 'chain'), LOG_LEVEL: 'warn' };
  const node = new Proc('chain', 'chain', await freePort(), env, logDir);
  await node.start().ready();
  const chain = RpcChain.local(node.url, SEED);
  const connection = new Connection(node.url, { commitment: 'confirmed' });
  try {
    const usdc = chain.tokens[0]!;
    const senders = Array.from({ length: 16 }, () => generateSigner());
    const recipients = Array.from({ length: 16 }, () => generateSigner());
    for (const s of [...senders, ...recipients]) {
      await chain.fund(s.address, 10_000_000_000n);
      await chain.mintTo(s.address, usdc.mint, 10n ** 12n, `fund-${s.address}`);
    }
    const signOnce = (w: number, i: number, tag: string) =>
      prepareTransfer(chain, {
        from: senders[w % senders.length]!,
        to: recipients[i % recipients.length]!.address,
        mint: usdc.mint,
        decimals: usdc.decimals,
        net: 999_000n,
        fee: 1_000n,
        treasury: chain.treasury,
        reference: `${tag}-${i}`,
      });
    // The node moves to a new blockhash every 5,000 transactions: a transfer refused for that is
    // signed anew (once the adapter's blockhash, kept for a second, is renewed), as the executor does.
    let renewing: Promise<unknown> | undefined;
    const sign = async (w: number, i: number, tag: string) => {
      await renewing;
      return signOnce(w, i, tag);
    };
    const retried =
      (way: (tx: SignedTransaction) => Promise<void>) =>
      async (tx: SignedTransaction, again: () => Promise<SignedTransaction>): Promise<void> => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await way(tx);
          } catch (err) {
            const text = String(
              (err as { error?: string; message?: string }).error ?? (err as Error).message,
            );
            if (!/BlockhashNotFound/.test(text) || attempt >= 3) throw err;
            renewing ??= new Promise((r) => setTimeout(r, 1_100)).finally(() => (renewing = undefined));
            await renewing;
            tx = await again();
          }
        }
      };
    // The adapter before: send, then the signature's status until it lands, every 200 ms.
    const polled = async (tx: SignedTransaction) => {
      await connection.sendRawTransaction(tx.wire, { skipPreflight: false, maxRetries: 0 });
      for (;;) {
        const { value } = await connection.getSignatureStatuses([tx.signature], {
          searchTransactionHistory: true,
        });
        if (value[0]?.confirmationStatus) return;
        await connection.getBlockHeight();
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const ways = {
      poll: retried(polled),
      subscription: retried((tx) => chain.submit(tx)),
    };
    let run = 0;
    const latencies = (n: number, way: keyof typeof ways) => {
      const ms: number[] = [];
      const tag = `${way}-seq-${run++}`;
      return measure(`${way}: one at a time`, n, 1, async (w, i) => {
        const tx = await sign(w, i, tag);
        const start = performance.now();
        await ways[way](tx, () => sign(w, i, `${tag}-again`));
        ms.push(performance.now() - start);
      }).then(() => {
        ms.sort((a, b) => a - b);
        return { p50: ms[Math.floor(ms.length / 2)]!, p99: ms[Math.floor(ms.length * 0.99)]! };
      });
    };
    const rate = (n: number, way: keyof typeof ways) =>
      measure(`${way}: 16 at once`, n, 16, async (w, i) =>
        ways[way](await sign(w, i, `${way}-par`), () => sign(w, i, `${way}-par-again`)),
      );

    // Landing after the wait began (a cluster): the lag from landing to knowing, 16 at once.
    const pubsub = new PubsubClient(node.url.replace(/^http/, 'ws'));
    const watcher = new Confirmations(confirmationSource(pubsub, new JsonRpcClient(node.url)));
    const lag = async (n: number, way: keyof typeof ways) => {
      const ms: number[] = [];
      const tag = `${way}-late-${run++}`;
      await measure(`${way}: landing later`, n, 16, async (w, i) => {
        const tx = await sign(w, i, tag);
        let landed = 0;
        let refused = false; // by a blockhash rotation: the sample is dropped
        const send = new Promise((r) => setTimeout(r, (i * 53) % 400))
          .then(() => connection.sendRawTransaction(tx.wire, { skipPreflight: false, maxRetries: 0 }))
          .then(
            () => (landed = performance.now()),
            () => (refused = true),
          );
        if (way === 'poll') {
          while (!refused) {
            const { value } = await connection.getSignatureStatuses([tx.signature]);
            if (value[0]?.confirmationStatus) break;
            await connection.getBlockHeight();
            await new Promise((r) => setTimeout(r, 200));
          }
        } else {
          const watch = watcher.watch(tx.signature, tx.lastValidBlockHeight);
          await Promise.race([watch.done, send.then(() => refused && watch.cancel())]);
          if (!refused) await watch.done;
        }
        const known = performance.now();
        await send;
        if (refused) return;
        ms.push(Math.max(0, known - landed));
      });
      ms.sort((a, b) => a - b);
      return { p50: ms[Math.floor(ms.length / 2)]!, p99: ms[Math.floor(ms.length * 0.99)]! };
    };

    const seq = Math.max(50, Math.round(500 * scale));
    const par = Math.max(200, Math.round(2000 * scale));
    await latencies(20, 'subscription'); // warm: the WebSocket connects, the code is compiled
    await latencies(20, 'poll');
    const pollOne = await latencies(seq, 'poll');
    const subOne = await latencies(seq, 'subscription');
    const pollRate = await rate(par, 'poll');
    const subRate = await rate(par, 'subscription');
    const late = Math.max(100, Math.round(500 * scale));
    const pollLag = await lag(late, 'poll');
    const subLag = await lag(late, 'subscription');
    watcher.close();
    pubsub.close();
    return report('Confirmation over JSON-RPC (local chain node in its own process)', [
      {
        name: 'send and confirm, one at a time: p50',
        value: subOne.p50,
        unit: 'ms',
        baseline: { name: 'status polled every 200 ms', value: pollOne.p50 },
      },
      {
        name: 'send and confirm, one at a time: p99',
        value: subOne.p99,
        unit: 'ms',
        baseline: { name: 'status polled every 200 ms', value: pollOne.p99 },
      },
      {
        name: 'sign, send and confirm, 16 at once',
        value: subRate,
        unit: 'tx/s',
        baseline: { name: 'status polled every 200 ms', value: pollRate },
      },
      {
        name: 'landing later (a cluster): landed to known, p50',
        value: subLag.p50,
        unit: 'ms',
        baseline: { name: 'status polled every 200 ms', value: pollLag.p50 },
      },
      {
        name: 'landing later (a cluster): landed to known, p99',
        value: subLag.p99,
        unit: 'ms',
        baseline: { name: 'status polled every 200 ms', value: pollLag.p99 },
      },
    ]);
  } finally {
    await chain.close();
    await node.kill('SIGTERM');
  }
}
