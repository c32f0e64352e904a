import {
  describeEvent,
  decidedBy,
  frozenWords,
  groupLimitsWords,
  grouped,
  percent,
  proposalWords,
  ruleWords,
} from './describe';
import {
  amountFieldOf,
  checkField,
  countdown,
  csv,
  endpointHealth,
  expiresSoon,
  fieldOf,
  plainIssue,
  relative,
  sentence,
  span,
  sumAmounts,
} from './words';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('the API’s field issues, in words', () => {
  it('names the field a detail points at (its last part that is not an index)', () => {
    expect(fieldOf('/address')).toBe('address');
    expect(fieldOf('/default_limits/per_tx_limit')).toBe('per_tx_limit');
    expect(fieldOf('/event_types/3')).toBe('event_types');
    expect(fieldOf('/a~1b')).toBe('a/b');
    expect(fieldOf('')).toBeUndefined();
  });

  it('says what is wrong as a person reads it', () => {
    expect(sentence('Address', plainIssue('must NOT have fewer than 32 characters', 'address'))).toBe(
      'Address is not a Solana address: an address is 32 to 44 letters and digits (base58).',
    );
    expect(sentence('Label', plainIssue('must NOT have more than 64 characters'))).toBe(
      'Label is too long: at most 64 characters.',
    );
    expect(
      sentence(
        'HTTPS URL',
        plainIssue('must resolve to public addresses only (10.1.2.3: private IPv4 address)'),
      ),
    ).toBe('HTTPS URL must reach a public address: it leads to 10.1.2.3, a private IPv4 address.');
    expect(plainIssue('must be >= 1')).toBe('must be at least 1');
    expect(plainIssue('must be integer')).toBe('must be a whole number');
    expect(plainIssue("must have required property 'url'")).toBe('is required');
    expect(plainIssue('must match format "uri"')).toBe('is not a web address (https://…)');
    // An issue of the service's own words stays as it is.
    expect(plainIssue('must be an integer from 1 to the number of approvers (1)')).toBe(
      'must be an integer from 1 to the number of approvers (1)',
    );
  });

  it('finds the field an invalid_amount refusal names, among the form’s', () => {
    const message =
      'The daily_limit is not a decimal number like "12.5"; send a non-negative amount with at most 6 decimals.';
    expect(amountFieldOf(message, ['per_tx_limit', 'daily_limit'])).toBe('daily_limit');
    expect(amountFieldOf(message, ['per_tx_limit'])).toBeUndefined();
    expect(amountFieldOf('The amount must be more than zero.', ['daily_limit'])).toBeUndefined();
  });
});

describe('the console’s own checks of a field', () => {
  it('takes amounts as the service does: digits, at most 6 decimals, at most u64 micro-units', () => {
    expect(checkField('12.5', 'amount')).toBeUndefined();
    expect(checkField('18446744073709.551615', 'amount')).toBeUndefined();
    expect(checkField('18446744073709.551616', 'amount')).toBe('is too large');
    expect(checkField('18446744073710', 'amount')).toBe('is too large');
    expect(checkField('1.1234567', 'amount')).toBe('takes at most 6 decimals');
    expect(checkField('ten', 'amount')).toMatch(/^must be an amount like 12.5/);
    expect(checkField('-1', 'amount')).toMatch(/^must be an amount/);
    expect(checkField('1e3', 'amount')).toMatch(/^must be an amount/);
    expect(checkField('0.000', 'amount', { positive: true })).toBe('must be more than 0');
    expect(checkField('0.001', 'amount', { positive: true })).toBeUndefined();
    expect(checkField('', 'amount')).toBeUndefined();
    expect(checkField('', 'amount', { required: true })).toBe('is required');
  });

  it('takes addresses, wallets, whole numbers and https URLs', () => {
    expect(checkField('11111111111111111111111111111111', 'address')).toBeUndefined();
    expect(checkField('0OIl', 'address')).toMatch(/^is not a Solana address/);
    expect(checkField('11111111111111111111111111111111, 0OIl', 'wallets')).toMatch(/^names something/);
    expect(checkField('2.5', 'integer')).toBe('must be a whole number');
    expect(checkField('0', 'integer', { min: 1 })).toBe('must be at least 1');
    expect(checkField('200', 'number', { max: 168 })).toBe('must be at most 168');
    expect(checkField('http://example.com', 'url')).toBe('must start with https://');
    expect(checkField('example', 'url')).toMatch(/^is not a web address/);
    expect(checkField('https://example.com/hook', 'url')).toBeUndefined();
  });
});

describe('durations and countdowns', () => {
  it('reads a lifetime in days when it is days', () => {
    expect(span(30 * DAY)).toBe('30 days');
    expect(span(DAY)).toBe('1 day');
    expect(span(2 * DAY + 4 * HOUR)).toBe('2 days 4 h');
    expect(span(2 * HOUR)).toBe('2 h');
    expect(span(90 * MIN)).toBe('1 h 30 min');
    expect(span(12 * MIN)).toBe('12 min');
    expect(span(4_000)).toBe('4 s');
  });

  it('counts down by the second within a day, by days and hours beyond', () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    expect(countdown(now + 30 * DAY - 2 * MIN, now)).toBe('29 days 23 h left');
    expect(countdown(now + 2 * HOUR - 1000, now)).toBe('1h 59m 59s left');
    expect(countdown(now - 1, now)).toBe('expired');
    expect(relative(now + 5 * MIN, now)).toBe('in 5 min');
    expect(relative(now - 3 * MIN, now)).toBe('3 min ago');
  });

  it('says an entry expires soon when a tenth or less of its own lifetime is left', () => {
    const now = 1_000 * DAY;
    expect(expiresSoon(now - 27.5 * DAY, now + 2.5 * DAY, now)).toBe(true); // 30 days, 2.5 left
    expect(expiresSoon(now - 20 * DAY, now + 10 * DAY, now)).toBe(false); // 30 days, 10 left
    expect(expiresSoon(now - HOUR, now + 24 * HOUR, now)).toBe(false); // 25 hours, 24 left: not soon
    expect(expiresSoon(now - 115 * MIN, now + 5 * MIN, now)).toBe(true); // 2 hours, 5 minutes left
    expect(expiresSoon(now - 30 * DAY, now, now)).toBe(false); // expired already
  });
});

describe('amounts, CSV', () => {
  it('adds decimal texts exactly', () => {
    expect(sumAmounts(['0.1', '0.2'])).toBe('0.3');
    expect(sumAmounts(['25', '30.000001', '45'])).toBe('100.000001');
    expect(sumAmounts(['1.5', '1.5'])).toBe('3');
    expect(sumAmounts([])).toBe('0');
  });

  it('quotes a field with a comma, a quote or a line break (RFC 4180)', () => {
    expect(
      csv(
        ['a', 'b'],
        [
          ['rent, March', 'say "hi"'],
          [{ x: 1 }, null],
        ],
      ),
    ).toBe('a,b\r\n"rent, March","say ""hi"""\r\n"{""x"":1}",\r\n');
  });
});

describe('an endpoint’s health', () => {
  const attempt = (
    at: string,
    outcome: string,
    error: string | null = null,
    status_code: number | null = null,
  ) => ({
    at,
    outcome,
    error,
    status_code,
  });
  const delivery = (
    status: 'delivered' | 'failed' | 'dead' | 'pending',
    log: ReturnType<typeof attempt>[],
    next?: string,
  ) => ({
    status,
    attempts: log.length,
    created_at: log[0]?.at ?? '2026-12-01T00:00:00.000Z',
    ...(next && { next_attempt_at: next }),
    log,
  });

  it('says so when every delivery fails, with the error and the next attempt: never just "active"', () => {
    const health = endpointHealth({ status: 'active' }, [
      delivery(
        'failed',
        [attempt('2026-12-01T10:00:00.000Z', 'failed', 'connection refused')],
        '2026-12-01T10:05:00.000Z',
      ),
      delivery(
        'failed',
        [attempt('2026-12-01T10:01:00.000Z', 'failed', 'connection refused')],
        '2026-12-01T10:06:00.000Z',
      ),
    ]);
    expect(health).toEqual({
      state: 'failing',
      text: 'every delivery fails (the last 2)',
      error: 'connection refused',
      next: '2026-12-01T10:06:00.000Z',
    });
  });

  it('reads each delivery by its latest attempt: delivered again after failures is healthy', () => {
    const health = endpointHealth({ status: 'active' }, [
      delivery('delivered', [
        attempt('2026-12-01T10:00:00.000Z', 'failed', null, 500),
        attempt('2026-12-01T10:02:00.000Z', 'delivered'),
      ]),
      delivery('dead', [attempt('2026-12-01T10:01:00.000Z', 'failed', 'HTTP 500', 500)]),
    ]);
    expect(health).toEqual({ state: 'healthy', text: 'delivering again (1 of the last 2 failed)' });
    expect(endpointHealth({ status: 'disabled', status_reason: 'gone (410)' }, [])).toEqual({
      state: 'disabled',
      text: 'disabled by the service: gone (410)',
    });
    expect(endpointHealth({ status: 'active' }, []).state).toBe('quiet');
    expect(endpointHealth({ status: 'active' }, [delivery('pending', [])]).state).toBe('waiting');
  });
});

describe('events, in words', () => {
  const w = {
    name: (a: string) => ({ A: 'buyer', S: 'supplier', Y: 'you' })[a] ?? a,
    symbol: () => 'USDC',
    base: 'USDC',
  };

  it('says an entry’s daily limit when it is set with the entry, set on its own, or lifted', () => {
    expect(
      describeEvent('whitelist.entry_added', { address: 'S', type: 2, daily_limit: '500' }, w).text,
    ).toBe('supplier allowed, at most 500 USDC a day');
    expect(describeEvent('whitelist.daily_limit_set', { address: 'S', daily_limit: '40' }, w).text).toBe(
      'supplier’s daily limit set to 40 USDC',
    );
    expect(describeEvent('whitelist.daily_limit_set', { address: 'S', daily_limit: null }, w).text).toBe(
      'supplier’s daily limit lifted',
    );
  });

  it('names the agent and the recipient, with the token’s symbol and the memo', () => {
    const d = describeEvent(
      'intent.accepted',
      {
        agent_id: 'A',
        action: 'transfer',
        amount: '25',
        mint: 'M',
        counterparty: 'S',
        intent_id: 'I',
        memo: 'invoice 17',
      },
      w,
    );
    expect(d).toEqual({
      text: 'buyer: transfer of 25 USDC to supplier accepted',
      agent: 'A',
      counterparty: 'S',
      amount: '25 USDC',
      memo: 'invoice 17',
      intent: 'I',
    });
  });

  it('tells a person’s rejection from one by the agent’s revocation or its emergency withdrawal', () => {
    expect(decidedBy({ decision: 'rejected', by: ['Y'], reason: 'not this week' }, w)).toBe(
      ' by you (“not this week”)',
    );
    expect(decidedBy({ decision: 'rejected', by: [], reason: 'emergency withdrawal' }, w)).toBe(
      ' by the emergency withdrawal of its agent',
    );
    expect(decidedBy({ decision: 'rejected', by: [], reason: 'agent revoked' }, w)).toBe(
      ' when its agent was revoked',
    );
    expect(decidedBy({ decision: 'approved', by: ['Y', 'A'] }, w)).toBe(' by you, buyer');
    expect(decidedBy({ decision: 'expired', by: [] }, w)).toBe(': nobody decided in time');
  });
});

describe('proposals and freezes, in words', () => {
  const w = {
    name: (a: string) => ({ A: 'buyer', Y: 'you' })[a] ?? `${a.slice(0, 3)}…`,
    symbol: () => 'USDC',
    base: 'USDC',
  };

  it('groups an amount’s whole part by thousands', () => {
    expect(grouped('1000')).toBe('1,000');
    expect(grouped(1234567.5)).toBe('1,234,567.5');
    expect(grouped('999')).toBe('999');
    expect(grouped('n/a')).toBe('n/a');
  });

  it('says what each change would make, from its action and its parameters', () => {
    expect(
      proposalWords(
        'allow_list.add',
        { address: '7xKabc', type: 1, approved_amount: '1000', ttl_seconds: 2_592_000 },
        w,
      ),
    ).toBe('allow-list 7xK…: 1,000 USDC for 30 days');
    expect(proposalWords('allow_list.add', { address: 'P', type: 2, label: 'pool' }, w)).toBe(
      'allow-list the protocol P… (“pool”)',
    );
    expect(proposalWords('allow_list.add', { address: 'P', type: 2, daily_limit: '2500' }, w)).toBe(
      'allow-list the protocol P…, at most 2,500 USDC a day',
    );
    expect(proposalWords('allow_list.daily_limit', { entry: 'E', daily_limit: '3000' }, w)).toBe(
      'raise the daily limit of the allow-list entry E… to 3,000 USDC',
    );
    expect(proposalWords('allow_list.daily_limit', { entry: 'E', daily_limit: null }, w)).toBe(
      'lift the daily limit of the allow-list entry E…',
    );
    expect(proposalWords('agent.invite', {}, w)).toBe('invite an agent');
    expect(proposalWords('agent.invite', { label: 'helper', limits: { daily_limit: '50' } }, w)).toBe(
      'invite an agent “helper” with 50 USDC a day',
    );
    expect(proposalWords('agent.unfreeze', { agent: 'A' }, w)).toBe('lift the freeze of agent buyer');
    expect(proposalWords('group.unfreeze', {}, w)).toBe('lift the freeze of the group');
    expect(proposalWords('member.add', { wallet: 'Y', role: 'approver' }, w)).toBe('make you an approver');
    expect(proposalWords('member.remove', { wallet: 'A' }, w)).toBe('remove the member buyer');
    expect(proposalWords('governance.set', { quorum: 2, delay_seconds: 0 }, w)).toBe(
      'set the governance: quorum 2 (each widening change signed by 2 admins), no delay',
    );
    expect(
      proposalWords('agent.limits', { agent: 'A', limits: { per_tx_limit: '10', hourly_tx_cap: 5 } }, w),
    ).toBe('change the limits of agent buyer: 10 USDC a transaction, 5 transactions an hour');
    expect(
      proposalWords(
        'approval_policy.set',
        { threshold: '20', quorum: 1, approvers: ['Y'], ttl_seconds: 86_400 },
        w,
      ),
    ).toBe('set the approval policy: hold spends above 20 USDC; 1 of you decide within 1 day');
    expect(proposalWords('agent.emergency_withdraw', { agent: 'A' }, w)).toBe(
      'withdraw everything agent buyer holds to the safe destination',
    );
    expect(
      proposalWords('webhook.register', { url: 'https://x.example/h', event_types: ['a', 'b'] }, w),
    ).toBe('send the group’s events to https://x.example/h (2 event kinds)');
    expect(proposalWords('something.new', {}, w)).toBe('something new');
  });

  it('says who froze, when and why', () => {
    const at = new Date(2026, 0, 5, 14, 2).toISOString();
    expect(
      frozenWords({ by: 'Y', reason: 'prompt injection suspected', at }, w.name, Date.parse(at)),
    ).toMatch(/^since (14.02|02.02 PM), by you: “prompt injection suspected”$/);
    expect(frozenWords({ by: 'A', reason: null, at }, w.name, Date.parse(at))).toMatch(
      /, by buyer \(no reason given\)$/,
    );
  });

  it('names the freezes and the proposals in the log', () => {
    expect(describeEvent('agent.frozen', { agent_id: 'A', by: 'Y', reason: 'drill' }, w).text).toBe(
      'buyer: frozen by you (“drill”)',
    );
    expect(describeEvent('group.unfrozen', {}, w).text).toBe('The group’s freeze was lifted');
    expect(
      describeEvent(
        'governance.proposed',
        { proposed_by: 'Y', action: 'agent.unfreeze', params: { agent: 'A' } },
        w,
      ).text,
    ).toBe('you proposed to lift the freeze of agent buyer');
  });
});

describe('the guard, in words', () => {
  const w = {
    name: (a: string) => ({ A: 'buyer', Y: 'you' })[a] ?? `${a.slice(0, 3)}…`,
    symbol: () => 'USDC',
    base: 'USDC',
  };

  it('says each kind of rule with its parameters and its action', () => {
    expect(ruleWords({ kind: 'velocity', factor: 5, min_count: 10, action: 'hold' })).toBe(
      'Velocity: when its spends in the last hour number more than 5 × its usual hourly count (over 7 days), and at least 10, hold the spend for approval.',
    );
    expect(ruleWords({ kind: 'burst', window_seconds: 600, fraction: '0.25', action: 'freeze_agent' })).toBe(
      'Burst: when what it spends within 10 min is more than 25 % of its daily limit, refuse the spend and freeze the agent.',
    );
    expect(ruleWords({ kind: 'new_counterparty', action: 'hold' })).toBe(
      'New counterparty: when it spends to a recipient or protocol of the allow-list for the first time, hold the spend for approval.',
    );
    expect(ruleWords({ kind: 'new_token', action: 'hold' })).toMatch(
      /^New token: when it spends a token for the first time/,
    );
    expect(ruleWords({ kind: 'refusals', count: 3, window_seconds: 3600, action: 'freeze_agent' })).toBe(
      'Refusals: when 3 of its spends are refused within 1 h, refuse the spend and freeze the agent.',
    );
    expect(
      ruleWords({
        kind: 'quiet_hours',
        from: '22:00',
        to: '06:00',
        time_zone: 'Europe/Paris',
        action: 'hold',
      }),
    ).toBe(
      'Quiet hours: when it spends between 22:00 and 06:00 (Europe/Paris time), hold the spend for approval.',
    );
    expect(percent('0.125')).toBe('12.5 %');
    expect(percent('1')).toBe('100 %');
  });

  it('says the group’s limits as set, lifted or left out', () => {
    expect(groupLimitsWords({ daily_limit: '5000', hourly_tx_cap: 200 }, 'USDC')).toBe(
      '5,000 USDC a day, 200 operations an hour',
    );
    expect(groupLimitsWords({ daily_limit: null }, 'USDC')).toBe('no daily limit');
    expect(groupLimitsWords({ daily_limit: null, hourly_tx_cap: null }, 'USDC')).toBe(
      'no daily limit, no hourly cap',
    );
    expect(proposalWords('group.limits', { daily_limit: '9000' }, w)).toBe(
      'set the group’s limits: 9,000 USDC a day',
    );
    expect(proposalWords('group.guard', { rules: [] }, w)).toBe('remove every guard rule');
    expect(proposalWords('group.guard', { rules: [{ kind: 'velocity' }, { kind: 'new_token' }] }, w)).toBe(
      'set the guard’s rules: velocity, new token',
    );
  });

  it('tells a freeze by the guard from an admin’s, and names the rule that tripped or held', () => {
    const at = new Date(2026, 0, 5, 14, 2).toISOString();
    expect(
      frozenWords({ by: 'guard', reason: 'velocity: 2 spends in the last hour', at }, w.name, Date.parse(at)),
    ).toMatch(/^since (14.02|02.02 PM), by the guard: “velocity: 2 spends in the last hour”$/);
    expect(
      describeEvent('agent.frozen', { agent_id: 'A', by: 'guard', reason: 'velocity: 2 spends' }, w).text,
    ).toBe('buyer: frozen by the guard (“velocity: 2 spends”)');
    const tripped = describeEvent(
      'guard.tripped',
      { agent_id: 'A', rule: 'new_counterparty', action: 'hold', words: 'first spend to S', intent_id: 'I' },
      w,
    );
    expect(tripped).toMatchObject({
      text: 'buyer: the guard’s new counterparty rule tripped: first spend to S; the spend is held for approval',
      intent: 'I',
    });
    expect(
      describeEvent(
        'approval.requested',
        {
          agent_id: 'A',
          action: 'transfer',
          amount: '30',
          counterparty: 'S',
          reason: 'threshold',
          guard: [{ rule: 'burst' }],
        },
        w,
      ).text,
    ).toBe('buyer: transfer of 30 USDC to S… held for approval (above the threshold; and the guard: burst)');
    expect(describeEvent('group.limits_set', { daily_limit: '500', hourly_tx_cap: null }, w).text).toBe(
      'The group’s limits set: 500 USDC a day, no hourly cap',
    );
  });
});
