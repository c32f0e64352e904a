/**
 * The group's events as they happen: server-sent events from GET /orchestrator/groups/{group}/events,
 * read through the generated client as a stream and parsed by eventsource-parser. When the stream
 * breaks it reconnects with the last event id it saw (Last-Event-ID), so nothing is missed. The
 * approvals page follows the same stream (useGroupEvents) to read the held spends again.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { api, type Schemas } from '../api';
import { Section } from '../ui';

type LogEvent = Schemas['AuditEventView'];

const short = (id: unknown): string =>
  typeof id === 'string' && id.length > 12 ? `${id.slice(0, 4)}…${id.slice(-4)}` : String(id ?? '');

/** One line a person reads for an event of the log. */
export function describe(e: LogEvent): string {
  const d = (e.data ?? {}) as Record<string, unknown>;
  switch (e.type) {
    case 'intent.accepted':
      return `Agent ${short(d.agent_id)} ${String(d.action)}: ${String(d.amount)} to ${short(d.counterparty)} accepted`;
    case 'intent.confirmed':
      return `Agent ${short(d.agent_id)}: confirmed on chain (${short(d.tx_sig)})`;
    case 'intent.failed':
      return `Agent ${short(d.agent_id)}: failed`;
    case 'intent.blocked':
      return `Agent ${short(d.agent_id)} blocked (${String(d.code)}): ${String(d.attempted_amount)} to ${short(d.counterparty)}`;
    case 'policy.limit_threshold':
      return `Agent ${short(d.agent_id)} passed a limit threshold`;
    case 'policy.whitelist_expiring':
      return `An allow-list entry expires soon`;
    case 'approval.requested':
      return `Agent ${short(d.agent_id)} ${String(d.action)}: ${String(d.amount)} to ${short(d.counterparty)} held for approval`;
    case 'approval.decided':
      return `A held spend was ${String(d.decision)}`;
    default:
      return e.type.replace(/[._]/g, ' ');
  }
}

const MAX_SHOWN = 50;

const STATES = {
  connecting: 'Connecting…',
  live: 'Live: new events appear here as they happen.',
  reconnecting: 'Reconnecting…',
  expired: 'Your session expired: sign out and sign in again to follow the events.',
};

/**
 * Follows the group's event stream (the last day's events, then each new one): `onEvent` is told each
 * event; the answer is the stream's state.
 */
export function useGroupEvents(group: string, onEvent: (e: LogEvent) => void): keyof typeof STATES {
  const [state, setState] = useState<keyof typeof STATES>('connecting');
  const told = useRef(onEvent);
  told.current = onEvent;
  useEffect(() => {
    const stop = new AbortController();
    // The last day's events, then each new one.
    const since = new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString();
    let last: string | undefined;
    const follow = async () => {
      while (!stop.signal.aborted) {
        try {
          const { response } = await api.GET('/orchestrator/groups/{group}/events', {
            params: { path: { group }, query: { since } },
            headers: { accept: 'text/event-stream', ...(last && { 'last-event-id': last }) },
            parseAs: 'stream',
            signal: stop.signal,
          });
          if (response.status === 401) {
            setState('expired');
            return;
          }
          if (!response.ok || !response.body) throw new Error(`events: ${response.status}`);
          setState('live');
          const reader = response.body
            .pipeThrough(new TextDecoderStream())
            .pipeThrough(new EventSourceParserStream())
            .getReader();
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            if (value.id) last = value.id;
            told.current(JSON.parse(value.data) as LogEvent);
          }
        } catch {
          if (stop.signal.aborted) return;
        }
        setState('reconnecting');
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    };
    void follow();
    return () => stop.abort();
  }, [group]);
  return state;
}

export function LiveEvents({ group, onEvent }: { group: string; onEvent?: (e: LogEvent) => void }) {
  const [events, setEvents] = useState<LogEvent[]>([]);
  const state = useGroupEvents(group, (event) => {
    setEvents((shown) => [event, ...shown].slice(0, MAX_SHOWN));
    onEvent?.(event);
  });
  return (
    <Section title="Live events">
      <p class="muted">{STATES[state]}</p>
      <ol
        class="events"
        aria-live="polite"
        aria-label="Events, newest first"
        tabIndex={0}
        data-testid="live-events"
      >
        {events.map((e) => (
          <li key={e.event_id}>
            <time dateTime={e.recorded_at}>{new Date(e.recorded_at).toLocaleTimeString()}</time>{' '}
            <span class={`event ${e.type.split('.')[0]}`}>{describe(e)}</span>
          </li>
        ))}
      </ol>
    </Section>
  );
}
