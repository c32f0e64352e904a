/**
 * A group for the console's browser test written straight into the log (as the audit scale test
 * copies its spends): one append of the group's stream, the events made by the domain's own
 * deciders, so the service reads it as any group. Cheap (one append), where 5,500 calls of the API
 * would take the suite's whole budget; and it can hold what the API cannot make now (entries added
 * weeks ago). The stream is new to the service, so no cached state of it is bypassed.
 */
import { randomBytes } from 'node:crypto';
import {
  decideAddEntry,
  decideCreateGroup,
  decideInviteAgent,
  evolveGroup,
  initialGroupState,
  limitsFromData,
  newId,
  secretDigest,
  streams,
  type GroupEvent,
  type NewEvent,
} from '@tokenops/shared';
import type { World } from './harness';

const DAY = 86_400_000;
const HOUR = 3_600_000;

export interface SeededGroup {
  group: string;
  agents: number;
  entries: number;
  /** Labels of the entries that expire soon relative to their own lifetime (a tenth of it or less left). */
  soon: string[];
}

/**
 * A group of the world's operator with `agents` invited agents and `recipients` allow-listed
 * recipients (30-day entries of varied ages); with `nearTheirEnd`, three entries whose expiry is
 * near: two that expire soon relative to their lifetime, and one with less than a day left of a
 * 25-hour lifetime, which is not soon.
 */
export async function seedGroup(
  world: World,
  base: { mint: string; aggregator: string },
  { agents = 500, recipients = 5000, nearTheirEnd = false } = {},
): Promise<SeededGroup> {
  const group = newId();
  const now = Date.now();
  const created = decideCreateGroup(
    {
      group_id: group,
      owner_wallet: world.operator.wallet.address,
      base_mint: base.mint,
      default_limits: limitsFromData({ per_tx_limit: '100', daily_limit: '1000', hourly_tx_cap: 60 }),
      aggregator: { entry_id: newId(), address: base.aggregator },
      now: now - 28 * DAY,
    },
    initialGroupState(),
  );
  // Every decision after the creation is taken on the created group's state: the agents' ids and the
  // entries' addresses are all new, so none needs the others' (and folding 5,500 entries one by one
  // into the immutable state costs seconds: evolveGroup copies the allow-list at each entry).
  const state = created.reduce(evolveGroup, initialGroupState());
  const events: GroupEvent[] = [...created];
  const take = (made: GroupEvent[]) => void events.push(...made);
  for (let i = 0; i < agents; i++)
    take(
      decideInviteAgent(
        {
          agent_id: newId(), // 32 random bytes in base58, as an address (a key pair costs ms)
          invitation_hash: secretDigest(randomBytes(16).toString('hex')),
          expires_at: now + DAY,
          label: `agent-${String(i).padStart(3, '0')}`,
          entry_id: newId(),
          now: now - DAY,
        },
        state,
      ),
    );
  const entry = (label: string, addedAgo: number, lifetime: number) =>
    take(
      decideAddEntry(
        {
          entry_id: newId(),
          address: newId(),
          type: 1,
          label,
          approved_amount: '250',
          ttl_seconds: lifetime / 1000,
          now: now - addedAgo,
        },
        state,
      ),
    );
  for (let i = 0; i < recipients; i++)
    entry(`recipient-${String(i).padStart(4, '0')}`, (i % 20) * HOUR, 30 * DAY);
  if (nearTheirEnd) {
    entry('soon-thirty-days', 27.5 * DAY, 30 * DAY); // 2.5 of 30 days left
    entry('soon-two-hours', 115 * 60_000, 2 * HOUR); // 5 minutes of 2 hours left
    entry('late-but-not-soon', HOUR, 25 * HOUR); // 24 of 25 hours left: under a day, not soon
  }
  const appended: NewEvent[] = events.map((e) => ({ type: e.type, data: e.data }));
  await world.service.ctx.store.append(streams.group(group), appended, 'no_stream');
  return {
    group,
    agents,
    entries: recipients + (nearTheirEnd ? 3 : 0),
    soon: nearTheirEnd ? ['soon-thirty-days', 'soon-two-hours'] : [],
  };
}
