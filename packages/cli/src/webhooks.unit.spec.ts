/** The CLI's webhook tables, on the answers the end-to-end suite does not meet (webhooks.e2e.spec.ts). */
import type { OperatorComponents } from '@tokenops/client';
import { deliveriesTable, subscriptionsTable } from './webhooks';

const cells = (table: string) => table.split('\n').map((line) => line.split(/ {2,}/));

const agent = 'CGFHRgy4xtcxdBZWmtrnZN7epLBdvqgMc1Q6ketstpgM';
const sub: OperatorComponents['schemas']['WebhookSubscriptionView'] = {
  webhook_id: 'wh_1',
  scope: 'agent',
  agent_wallet_pda: agent,
  group_config_pda: 'Hn9bxZqmEpFpNrtYqGB1Ke3S6CcDBtMPFdZqkDdUjc5h',
  url: 'https://example.com/hook',
  event_types: ['transfer.confirmed', 'agent.revoked'],
  status: 'disabled',
  status_reason: 'the receiver answered 410 Gone',
  created_at: '2026-01-01T00:00:00.000Z',
};

it("lists an agent's subscription with its scope and why it is disabled; an empty list says so", () => {
  expect(cells(subscriptionsTable({ webhooks: [sub] }))[1]).toEqual([
    'wh_1',
    `agent ${agent}`,
    'https://example.com/hook',
    'transfer.confirmed,agent.revoked',
    'disabled (the receiver answered 410 Gone)',
    '2026-01-01T00:00:00.000Z',
  ]);
  expect(subscriptionsTable({ webhooks: [] })).toBe('no webhooks');
});

it('shows a delivery not yet attempted with dashes, and a page shorter than the limit without "older"', () => {
  const table = deliveriesTable(
    {
      webhook: sub,
      deliveries: [
        {
          event_id: 'evt_1',
          event: 'transfer.confirmed',
          status: 'pending',
          attempts: 0,
          created_at: '2026-01-01T00:00:01.000Z',
          payload: {},
          log: [],
        },
      ],
    },
    2,
  );
  expect(cells(table)[2]).toEqual(['evt_1', 'transfer.confirmed', 'pending', '0', '-', '-', '-', '-']);
  expect(table).not.toContain('older');
});
