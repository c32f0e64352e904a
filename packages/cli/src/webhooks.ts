/**
 * The operator CLI's `webhooks` commands: subscribe a group's fleet, list its subscriptions, read a
 * subscription's delivery log as a table, redeliver, rotate the signing secret, delete. Each calls one
 * operator endpoint of routes.ts; `--json` prints the service's answer as it is.
 */
import Table from 'cli-table3';
import { Command, InvalidArgumentError, Option } from 'commander';
import { EVENT_KINDS, type EventKind } from '@tokenops/shared';
import type { OperatorComponents } from '@tokenops/client';
import type { Cli } from './session';

type Schemas = OperatorComponents['schemas'];
type Subscription = Schemas['WebhookSubscriptionView'];

/** Columns apart, no borders, no colours: reads in a terminal and greps in a script. */
export function table(head: string[], rows: string[][]): string {
  const none = { top: '', bottom: '', left: '', right: '', mid: '', middle: '  ' };
  const t = new Table({
    head,
    chars: {
      ...none,
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      'left-mid': '',
      'mid-mid': '',
      'right-mid': '',
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  t.push(...rows);
  return t
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

const statusOf = (s: Subscription) =>
  [
    s.status,
    s.status_reason && `(${s.status_reason})`,
    s.previous_secret_valid_until && `(previous secret signs until ${s.previous_secret_valid_until})`,
  ]
    .filter(Boolean)
    .join(' ');

export function subscriptionsTable(answer: Schemas['WebhookListResponse']): string {
  if (answer.webhooks.length === 0) return 'no webhooks';
  return table(
    ['WEBHOOK', 'SCOPE', 'URL', 'EVENTS', 'STATUS', 'CREATED'],
    answer.webhooks.map((s) => [
      s.webhook_id,
      s.scope === 'agent' ? `agent ${s.agent_wallet_pda ?? ''}` : 'group',
      s.url,
      s.event_types.join(','),
      statusOf(s),
      s.created_at,
    ]),
  );
}

/**
 * A page of the delivery log, newest first: each event, its status and attempts, and what its last
 * attempt met. A full page ends with how to ask for the next one.
 */
export function deliveriesTable(answer: Schemas['DeliveriesResponse'], limit = 20): string {
  const w = answer.webhook;
  const title = `${w.webhook_id}  ${w.url}  ${statusOf(w)}`;
  if (answer.deliveries.length === 0) return `${title}\nno deliveries`;
  const rows = answer.deliveries.map((d) => {
    const last = d.log.at(-1);
    return [
      d.event_id,
      d.event,
      d.next_attempt_at ? `${d.status} (next ${d.next_attempt_at})` : d.status,
      String(d.attempts),
      last?.at ?? '-',
      last?.outcome ?? '-',
      last?.status_code ? String(last.status_code) : '-',
      last ? `${last.latency_ms} ms` : '-',
      last?.error ?? '',
    ];
  });
  const head = [
    'EVENT ID',
    'EVENT',
    'STATUS',
    'ATTEMPTS',
    'LAST ATTEMPT',
    'OUTCOME',
    'HTTP',
    'LATENCY',
    'ERROR',
  ];
  const oldest = answer.deliveries.at(-1)!.created_at;
  const more = answer.deliveries.length >= limit ? [`older: --before ${oldest}`] : [];
  return [title, table(head, rows), ...more].join('\n');
}

const wholeNumber = (v: string): number => {
  if (!/^\d{1,9}$/.test(v)) throw new InvalidArgumentError('a whole number is expected.');
  return Number(v);
};

const kinds = (v: string): string[] =>
  v
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k.length > 0);

const shownOnce = (what: string) => `${what} is shown this once only: keep it now.`;

export function webhookCommands(p: Command, cli: Cli): void {
  const { authed } = cli;
  const hooks = p
    .command('webhooks')
    .description("webhook subscriptions of your groups (the fleet's and the agents')");

  hooks
    .command('add')
    .description(
      "subscribe the group's fleet (a proposal, signed with your keypair): prints the signing secret, once",
    )
    .argument('<group>')
    .requiredOption('--url <url>', 'where deliveries go (https, a public address)')
    .requiredOption('--events <kinds>', 'event kinds, comma-separated', kinds)
    .addHelpText('after', `\nEvent kinds: ${EVENT_KINDS.join(', ')}`)
    .action(
      authed(
        async (api, group: string, o: { url: string; events: string[] }) =>
          api.enact(
            await api.createFleetWebhook(group, { url: o.url, event_types: o.events as EventKind[] }),
          ),
        (answer) => {
          const { webhook_id, signing_secret } = answer as { webhook_id: string; signing_secret: string };
          return (
            `webhook_id: ${webhook_id}\nsigning_secret: ${signing_secret}\n` +
            `${shownOnce('The signing secret')} (A lost one: webhooks rotate-secret ${webhook_id}.)`
          );
        },
      ),
    );

  hooks
    .command('list')
    .description("every subscription of a group (the fleet's and its agents'), with its status")
    .argument('<group>')
    .action(
      authed(
        async (api, group: string) => api.listWebhooks(group),
        (answer) => subscriptionsTable(answer),
      ),
    );

  hooks
    .command('deliveries')
    .description("a subscription's delivery log, newest first: status, attempts, the last attempt")
    .argument('<webhook_id>')
    .option('--limit <n>', 'deliveries on the page (1 to 100; the service: 20)', wholeNumber)
    .option('--before <iso time>', 'only deliveries created before this time (the next page)')
    .action(
      authed(
        async (api, id: string, o: { limit?: number; before?: string }) =>
          api.listDeliveries(id, {
            ...(o.limit !== undefined && { limit: o.limit }),
            ...(o.before !== undefined && { before: o.before }),
          }),
        (answer, _id, o) => deliveriesTable(answer, o.limit ?? 20),
      ),
    );

  hooks
    .command('redeliver')
    .description('send again: one event (--event) or every event since a time (--since)')
    .argument('<webhook_id>')
    .addOption(new Option('--event <event_id>', 'the event to send again').conflicts('since'))
    .addOption(new Option('--since <iso time>', 'every event created since this time'))
    .hook('preAction', (cmd) => {
      const o = cmd.opts<{ event?: string; since?: string }>();
      if (o.event === undefined && o.since === undefined)
        cmd.error('error: say what to send again: --event <event_id> or --since <iso time> (one of them)');
    })
    .action(
      authed(async (api, id: string, o: { event?: string; since?: string }) =>
        api.redeliver(id, o.event !== undefined ? { event_id: o.event } : { since: o.since! }),
      ),
    );

  hooks
    .command('rotate-secret')
    .description('a new signing secret, shown once; the previous one keeps signing for the grace')
    .argument('<webhook_id>')
    .option(
      '--grace <seconds>',
      'how long the previous secret signs too (the service: a day; at most a week)',
      wholeNumber,
    )
    .action(
      authed(
        async (api, id: string, o: { grace?: number }) =>
          api.rotateWebhookSecret(id, o.grace !== undefined ? { grace_seconds: o.grace } : {}),
        (answer) =>
          `webhook_id: ${String(answer.webhook_id)}\nsigning_secret: ${String(answer.signing_secret)}\n` +
          `previous_secret_valid_until: ${String(answer.previous_secret_valid_until)}\n` +
          `${shownOnce('The new signing secret')} Until ${String(answer.previous_secret_valid_until)} ` +
          'deliveries carry both signatures, so receivers can switch.',
      ),
    );

  hooks
    .command('delete')
    .description('delete a subscription; deliveries not yet made are cancelled')
    .argument('<webhook_id>')
    .action(authed(async (api, id: string) => api.deleteWebhook(id)));
}
