/**
 * What the webhook relay looks up that a log event does not carry: the accepted intent an outcome
 * settles, and an agent's group. Learnt from the events the relay follows (kept while an intent is
 * unsettled, so a live relay reads nothing); after a restart, a miss reads the agent's stream once.
 */
import { decodeEvent, streams, type DomainEvent, type IntentData } from '../../domain/events';
import type { EventStore } from '../../event-store/port';

const MAX_INTENTS = 100_000;

export class LogLookup {
  private readonly intents = new Map<string, IntentData>();
  private readonly groups = new Map<string, string>();

  constructor(private readonly store: EventStore) {}

  /** Learns from an event the relay follows; call it before deriving from the same event. */
  observe(event: DomainEvent): void {
    switch (event.type) {
      case 'intent.accepted':
        this.intents.set(event.data.intent_id, event.data);
        this.groups.set(event.data.agent_id, event.data.group_id);
        if (this.intents.size > MAX_INTENTS) this.intents.delete(this.intents.keys().next().value!);
        break;
      case 'agent.registered':
      case 'agent.invited':
        this.groups.set(event.data.agent_id, event.data.group_id);
        break;
    }
  }

  /** Once an outcome is derived, its intent is not needed again. */
  settled(intentId: string): void {
    this.intents.delete(intentId);
  }

  async intent(agentId: string, intentId: string): Promise<IntentData | undefined> {
    const known = this.intents.get(intentId);
    if (known) return known;
    for (const recorded of await this.store.readStream(streams.agent(agentId))) {
      const e = decodeEvent(recorded);
      if (e?.type === 'intent.accepted' && e.data.intent_id === intentId) return e.data;
    }
    return undefined;
  }

  async groupOf(agentId: string): Promise<string | undefined> {
    const known = this.groups.get(agentId);
    if (known) return known;
    const [first] = await this.store.readStream(streams.agent(agentId), { maxCount: 1 });
    const e = first && decodeEvent(first);
    if (e?.type !== 'agent.registered') return undefined;
    this.groups.set(agentId, e.data.group_id);
    return e.data.group_id;
  }
}
