/**
 * A spend refused for its key (401): when the key is one the agent held (revoked, or rotated out), the
 * attempt is recorded on the agent's stream as a blocked intent (`unauthorized`), so the fleet's
 * webhooks carry `policy.transfer_blocked`. The rule, and why at most one a minute is recorded, is the
 * decider's (domain/agent.ts, decideKeyRefused). The request is not validated for a caller refused
 * its key: what it asked is read as far as it says, in either contract's field names.
 */
import { v7 as uuidv7 } from 'uuid';
import { decideKeyRefused } from '../../domain/agent';
import { streams, type Action } from '../../domain/events';
import { ZERO, parseAmount } from '../../money';
import type { Caller } from '../caller';
import type { Context } from '../context';

/** Records a refused spend with an agent's own old key; true when it was recorded (not coalesced, not a stranger's). */
export async function recordRefusedKey(
  ctx: Context,
  caller: Caller,
  action: Action,
  body: unknown,
): Promise<boolean> {
  const asked = (body ?? {}) as Record<string, unknown>;
  const text = (...names: string[]): string => {
    const value = names.map((n) => asked[n]).find((v) => typeof v === 'string' && /^\w{1,64}$/.test(v));
    return (value as string | undefined) ?? '';
  };
  let attempted_amount = ZERO;
  try {
    attempted_amount = parseAmount(asked.amount ?? asked.input_amount);
  } catch {
    // not an amount: recorded as 0
  }
  const attempt = {
    intent_id: uuidv7(),
    action,
    api_key_hash: caller.keyDigest,
    attempted_amount,
    mint: text('mint', 'from_mint', 'input_mint'),
    counterparty: text('to', 'recipient', 'lending_program'),
  };
  return ctx.agents.handle(streams.agent(caller.agentId), (agent) => {
    const events = decideKeyRefused({ ...attempt, now: ctx.now() }, agent);
    return { events, result: events.length > 0 };
  });
}
