import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_CATALOGUE, EVENT_KINDS, derivePublicEvents, publicEventId } from './catalogue';
import { withEventTable } from './table';

describe('the event catalogue', () => {
  it('is the same table as docs/events.md', () => {
    const doc = readFileSync(join(__dirname, '../../../docs/events.md'), 'utf8');
    expect(withEventTable(doc)).toBe(doc);
  });

  it("holds the spec's eleven kinds, the three confirmations of the other spend operations, the approvals' two, x402's settlement, governance's freezes and proposals, and the guard's trips", () => {
    expect(EVENT_KINDS.filter((k) => EVENT_CATALOGUE[k].origin === 'spec').sort()).toEqual(
      [
        'transfer.confirmed',
        'payment.received',
        'policy.transfer_blocked',
        'policy.limit_threshold',
        'policy.whitelist_expiring',
        'policy.whitelist_amount_threshold',
        'policy.whitelist_voided',
        'policy.whitelist_violation',
        'agent.api_key_rotated',
        'agent.revoked',
        'agent.emergency_withdraw',
      ].sort(),
    );
    expect(EVENT_KINDS.filter((k) => EVENT_CATALOGUE[k].origin === 'service').sort()).toEqual([
      'agent.frozen',
      'agent.unfrozen',
      'approval.decided',
      'approval.requested',
      'deposit.confirmed',
      'governance.cancelled',
      'governance.executed',
      'governance.expired',
      'governance.failed',
      'governance.proposed',
      'governance.signed',
      'group.frozen',
      'group.unfrozen',
      'guard.tripped',
      'swap.confirmed',
      'withdraw.confirmed',
      'x402.payment_refused',
      'x402.payment_settled',
    ]);
  });

  it('gives one event id per log event and kind, the same each time', () => {
    const blocked = {
      id: '0190c3a4-0000-7000-8000-000000000001',
      event: {
        type: 'intent.blocked' as const,
        data: {
          intent_id: 'i',
          agent_id: 'A',
          group_id: 'G',
          action: 'transfer' as const,
          code: 'whitelist_violation' as const,
          message: 'not listed',
          attempted_amount: '5',
          mint: 'M',
          counterparty: 'R',
          at: 0,
        },
      },
    };
    const first = derivePublicEvents(blocked, {});
    expect(first.map((e) => e.kind)).toEqual(['policy.transfer_blocked', 'policy.whitelist_violation']);
    expect(derivePublicEvents(blocked, {})).toEqual(first);
    expect(first[0]!.eventId).toBe(publicEventId(blocked.id, 'policy.transfer_blocked'));
    expect(first[0]!.eventId).not.toBe(first[1]!.eventId);
    expect(first[0]!.payload).toEqual({
      event: 'policy.transfer_blocked',
      event_id: first[0]!.eventId,
      agent_wallet_pda: 'A',
      error: { code: 'whitelist_violation', details: 'not listed' },
      attempted_amount: expect.anything(),
      blocked_at: '1970-01-01T00:00:00.000Z',
    });
    const other = derivePublicEvents(
      {
        ...blocked,
        event: { ...blocked.event, data: { ...blocked.event.data, code: 'per_tx_limit_exceeded' as const } },
      },
      {},
    );
    expect(other.map((e) => e.kind)).toEqual(['policy.transfer_blocked']);
  });

  it("a proposal's expiry reaches the group's webhooks with its id and when", () => {
    const [event] = derivePublicEvents(
      {
        id: '0190c3a4-0000-7000-8000-000000000009',
        event: {
          type: 'governance.expired',
          data: { proposal_id: 'G_p', group_id: 'G', at: Date.UTC(2026, 11, 9) },
        },
      },
      {},
    );
    expect(event).toMatchObject({
      kind: 'governance.expired',
      groupId: 'G',
      payload: {
        event: 'governance.expired',
        proposal_id: 'G_p',
        group_config_pda: 'G',
        expired_at: '2026-12-09T00:00:00.000Z',
      },
    });
    expect(event).not.toHaveProperty('agentId');
  });
});
