import Big from 'big.js';
import {
  AGENT_A,
  AGENT_B,
  GROUP,
  MINUTE,
  T0,
  VENDOR,
  groupEvents,
  registered,
  transfer,
} from '@tokenops/testing/domain/fixtures';
import { foldAgent } from './agent';
import { foldGroup } from './group';
import { decideIntent } from './intent';
import { streams, type AgentEvent, type DomainEvent } from './events';
import { previewPolicy, type StreamEvent } from './preview';

/** The log of agent A spending `amounts` to agent B then the vendor, a minute apart, as the decider records it. */
function history(amounts: string[]): StreamEvent[] {
  const log: StreamEvent[] = groupEvents().map((event) => ({ stream: streams.group(GROUP), event }));
  const agentEvents: AgentEvent[] = [registered(AGENT_A)];
  log.push({ stream: streams.agent(AGENT_A), event: agentEvents[0]! });
  amounts.forEach((amount, i) => {
    const cmd = transfer(amount, { counterparty: i % 2 ? VENDOR : AGENT_B, now: T0 + i * MINUTE });
    const d = decideIntent(cmd, { group: foldGroup(groupEvents()), agent: foldAgent(agentEvents) });
    for (const event of d.agentEvents) {
      agentEvents.push(event);
      log.push({ stream: streams.agent(AGENT_A), event: event as DomainEvent });
    }
  });
  return log;
}
const window = { from: T0, to: T0 + 60 * MINUTE };

describe('the policy preview', () => {
  const log = history(['10', '60', '95', '150', '20']);

  it('replays the window as it was: nothing changes under the policy it had', () => {
    const same = previewPolicy(log, {}, window);
    // 150 was blocked (per-tx 100) then, and is again; the others pass.
    expect(same).toMatchObject({ intents: 5, would_hold: 0, would_block: { per_tx_limit_exceeded: 1 } });
    expect(same.examples).toEqual([]);
  });

  it('counts what a threshold would hold and a lower per-tx limit would block, with examples', () => {
    const p = previewPolicy(log, { approval_threshold: new Big(50), per_tx_limit: new Big(90) }, window);
    expect(p).toMatchObject({ intents: 5, would_hold: 1, would_block: { per_tx_limit_exceeded: 2 } });
    expect(p.examples.map((x) => [x.amount, x.was, x.would])).toEqual([
      ['60', 'accepted', 'held'],
      ['95', 'accepted', 'per_tx_limit_exceeded'],
    ]);
  });

  it('an allow-list change and new_recipients: the vendor removed is a violation, a first recipient is held', () => {
    const removed = previewPolicy(log, { whitelist_remove: [VENDOR] }, window);
    // The allow-list is checked before the per-tx limit: 150 to the vendor is a violation too.
    expect(removed.would_block).toEqual({ whitelist_violation: 2 });
    const first = previewPolicy(log, { new_recipients: true }, window);
    // Each spend is judged on the real history: none to B or the vendor was approved before.
    expect(first.would_hold).toBe(4);
  });

  it('judges only the window, on the state the history built before it', () => {
    const late = previewPolicy(log, { daily_limit: new Big(100) }, { from: T0 + 2 * MINUTE, to: window.to });
    // 10 and 60 were spent before the window: 95 no longer fits a daily 100.
    expect(late).toMatchObject({
      intents: 3,
      would_block: { daily_limit_exceeded: 2, per_tx_limit_exceeded: 1 },
    });
  });
});
