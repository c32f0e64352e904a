/**
 * The group's events as they happen: server-sent events from GET /orchestrator/groups/{group}/events,
 * read through the generated client as a stream and parsed by eventsource-parser. When the stream
 * ends or breaks (the service stopped, the network went), or stays silent longer than the service's
 * keep-alive allows, the page says it is disconnected and tries again every second with the last
 * event id it saw (Last-Event-ID): once the service answers it is live again, and the service goes on
 * from the next event, so nothing is missed and nothing shows twice. The approvals page follows the
 * same stream (useGroupEvents) to read the held spends again.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { api, type Schemas } from '../api';
import { describeEvent, type Wording } from '../describe';
import { Section } from '../ui';

type LogEvent = Schemas['AuditEventView'];

const MAX_SHOWN = 50;

/** What the page says of the stream, by its state. */
export const STREAM_STATES = {
  connecting: 'Connecting…',
  live: 'Live: new events appear here as they happen.',
  disconnected: 'Disconnected: the service does not answer. Reconnecting…',
  expired: 'Your session expired: sign out and sign in again to follow the events.',
};
export type StreamState = keyof typeof STREAM_STATES;

/** How often to try again once disconnected. */
const RETRY_MS = 1000;
/**
 * A stream silent for this long is taken as broken: the service writes a comment every 15 s on a quiet
 * stream (console/reads.ts), so a connection that lost its other end says nothing at all.
 */
const SILENT_MS = 40_000;

/**
 * Follows the group's event stream (the last day's events, then each new one): `onEvent` is told each
 * event; the answer is the stream's state.
 */
export function useGroupEvents(group: string, onEvent: (e: LogEvent) => void): StreamState {
  const [state, setState] = useState<StreamState>('connecting');
  const told = useRef(onEvent);
  told.current = onEvent;
  useEffect(() => {
    const stop = new AbortController();
    // The last day's events, then each new one.
    const since = new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString();
    let last: string | undefined;
    const follow = async () => {
      while (!stop.signal.aborted) {
        // This connection: ended by the page leaving, or by a silence longer than the keep-alive.
        const attempt = new AbortController();
        const leave = () => attempt.abort();
        stop.signal.addEventListener('abort', leave);
        let silence: ReturnType<typeof setTimeout> | undefined;
        const heard = () => {
          clearTimeout(silence);
          silence = setTimeout(() => attempt.abort(), SILENT_MS);
        };
        try {
          heard();
          const { response } = await api.GET('/orchestrator/groups/{group}/events', {
            params: { path: { group }, query: { since } },
            headers: { accept: 'text/event-stream', ...(last && { 'last-event-id': last }) },
            parseAs: 'stream',
            signal: attempt.signal,
          });
          if (response.status === 401) {
            setState('expired');
            return;
          }
          if (!response.ok || !response.body) throw new Error(`events: ${response.status}`);
          setState('live');
          const text = new TextDecoder();
          const reader = response.body
            .pipeThrough(
              new TransformStream<Uint8Array, string>({
                transform: (chunk, out) => {
                  heard(); // events and the service's keep-alive comments alike
                  out.enqueue(text.decode(chunk, { stream: true }));
                },
                flush: (out) => out.enqueue(text.decode()),
              }),
            )
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
        } finally {
          clearTimeout(silence);
          stop.signal.removeEventListener('abort', leave);
        }
        if (stop.signal.aborted) return;
        // The stream ended (a stop of the service ends it), broke, or was refused: disconnected.
        setState('disconnected');
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    };
    void follow();
    return () => stop.abort();
  }, [group]);
  return state;
}

export function LiveEvents({
  group,
  wording,
  onEvent,
}: {
  group: string;
  wording: Wording;
  onEvent?: (e: LogEvent) => void;
}) {
  const [events, setEvents] = useState<LogEvent[]>([]);
  const state = useGroupEvents(group, (event) => {
    setEvents((shown) => [event, ...shown].slice(0, MAX_SHOWN));
    onEvent?.(event);
  });
  return (
    <Section title="Live events">
      <p class="muted" role="status" data-testid="live-state">
        {STREAM_STATES[state]}
      </p>
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
            <span class={`event ${e.type.split('.')[0]}`}>{describeEvent(e.type, e.data, wording).text}</span>
          </li>
        ))}
      </ol>
    </Section>
  );
}
