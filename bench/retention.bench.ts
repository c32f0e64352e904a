/**
 * What an agent's state costs in memory for each intent it keeps: every API instance and executor
 * holds the intents of the agents it served for 25 hours (the rolling daily window and an hour for
 * clocks that disagree: docs/operations.md, "Scale"), so that is what their memory grows by under a
 * steady load until the first day is over. 100,000 intents (BENCH_SCALE scales it), each accepted,
 * submitted (a signed transaction of 600 bytes on record) and confirmed, folded by the domain's own
 * `evolveAgent`; the heap measured after a full GC before and after. The baseline, in the same run:
 * the least a window could keep of each (its id, time and value, as three arrays).
 */
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { evolveAgent, initialAgentState, type AgentEvent } from '@tokenops/shared';
import { registered } from '@tokenops/testing/domain/fixtures';
import { report } from './harness';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The heap in use after a full collection (twice: finalizers free more the second time). */
function heap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** An id as the service has it: parsed from the log's JSON (a string of its own, not a slice of a batch). */
const id = (): string => JSON.parse(JSON.stringify(randomUUID())) as string;

/** An intent's three events as the log has them: accepted, submitted, confirmed. */
function settled(agent: string, at: number): AgentEvent[] {
  const intent_id = id();
  return [
    {
      type: 'intent.accepted',
      data: {
        intent_id,
        agent_id: agent,
        action: 'transfer',
        amount: '1.5',
        value: '1.5',
        spends: true,
        at,
      },
    },
    {
      type: 'intent.submitting',
      data: {
        intent_id,
        agent_id: agent,
        signature: 'S'.repeat(88),
        wire: 'W'.repeat(600),
        last_valid_block_height: '1000',
        at,
      },
    },
    { type: 'intent.confirmed', data: { intent_id, agent_id: agent, tx_sig: 'S'.repeat(88), at } },
  ] as AgentEvent[];
}

export async function retentionBench(): Promise<string> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const n = Math.max(1000, Math.round(100_000 * scale));
  const agent = 'bench-agent';
  const start = Date.now();

  // The baseline first, kept referenced to the end (an array no longer read can be collected early).
  const minimal = { ids: [] as string[], at: [] as number[], value: [] as bigint[] };
  const base = heap();
  for (let i = 0; i < n; i++) {
    minimal.ids.push(id());
    minimal.at.push(start + i * 100);
    minimal.value.push(1_500_000n);
  }
  const perMinimal = (heap() - base) / n;

  const before = heap();
  let state = evolveAgent(initialAgentState(), registered(agent));
  // A spend every 100 ms: 100,000 of them span under 3 hours, all inside the 25 kept.
  for (let i = 0; i < n; i++) for (const e of settled(agent, start + i * 100)) state = evolveAgent(state, e);
  const perIntent = (heap() - before) / n;
  const kept = [...state.intents.values()].length;
  if (kept !== n || minimal.ids.length !== n)
    throw new Error(`kept ${kept} and ${minimal.ids.length} of ${n}`);

  return report(`An agent's state per intent kept (${n.toLocaleString('en-US')} settled intents)`, [
    {
      name: 'heap a settled intent holds in the agent state',
      value: perIntent,
      unit: 'bytes',
      baseline: { name: 'id, time and value alone', value: perMinimal },
    },
  ]);
}
