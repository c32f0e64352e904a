import { WakePolicy, parseAnnouncement } from './announce';
import { ofTypes } from './port';

/** A payload as the append function writes it. */
const announcementPayload = (position: { commit: bigint; prepare: bigint }, types: string[]) =>
  `${position.commit}/${position.prepare} ${types.join(',')}`;

const at = (commit: number, prepare: number) => ({ commit: BigInt(commit), prepare: BigInt(prepare) });

describe('announcements', () => {
  it('carry the position reached and the types appended', () => {
    const a = parseAnnouncement(announcementPayload(at(12, 40), ['intent.accepted', 'budget.reserved']));
    expect(a?.position).toEqual(at(12, 40));
    expect([...a!.types]).toEqual(['intent.accepted', 'budget.reserved']);
  });

  it('say nothing when empty or missing (anything may have changed)', () => {
    expect(parseAnnouncement('')).toBeUndefined();
    expect(parseAnnouncement(undefined)).toBeUndefined();
  });
});

describe('a subscriber woken for some types', () => {
  const relay = () => new WakePolicy(ofTypes('intent.accepted'));

  it('reads when an append of its types is announced, not for the others', () => {
    const policy = relay();
    expect(policy.announced(announcementPayload(at(5, 1), ['idempotency.claimed']))).toBe(false);
    expect(policy.announced(announcementPayload(at(5, 2), ['intent.accepted']))).toBe(true);
  });

  it('reads at every announcement while what was announced for it is not read yet (held back by an older transaction)', () => {
    const policy = relay();
    expect(policy.owing()).toBe(false);
    expect(policy.announced(announcementPayload(at(9, 30), ['intent.accepted']))).toBe(true);
    policy.readUpTo(at(7, 12)); // the read stopped short: transaction 8 was still in flight
    expect(policy.owing()).toBe(true); // it looks again soon by itself, too
    expect(policy.announced(announcementPayload(at(8, 25), ['intent.submitting']))).toBe(true);
    policy.readUpTo(at(9, 30));
    expect(policy.owing()).toBe(false);
    expect(policy.announced(announcementPayload(at(10, 31), ['intent.submitting']))).toBe(false);
  });

  it('keeps the furthest position announced for it', () => {
    const policy = relay();
    policy.announced(announcementPayload(at(9, 30), ['intent.accepted']));
    policy.announced(announcementPayload(at(6, 3), ['intent.accepted']));
    policy.readUpTo(at(6, 3));
    expect(policy.announced(announcementPayload(at(10, 31), ['intent.confirmed']))).toBe(true);
  });

  it('reads on a notification that says nothing (listening began again, or too much to tell)', () => {
    expect(relay().announced(undefined)).toBe(true);
    expect(relay().announced('')).toBe(true);
  });

  it('is every subscriber that names no types', () => {
    expect(new WakePolicy(undefined).announced(announcementPayload(at(1, 1), ['anything']))).toBe(true);
  });
});
