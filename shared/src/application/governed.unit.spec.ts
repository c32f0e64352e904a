import { byProposal } from './governed';

describe('byProposal', () => {
  const events = [
    { type: 'member.added', data: { group_id: 'g', wallet: 'w', role: 'viewer', at: 1 } },
    { type: 'group.unfrozen', data: { group_id: 'g', at: 1 } },
  ];

  it('stamps every event of a change a proposal makes with its id, and leaves the decider’s events as they were', () => {
    expect(byProposal(events, 'p-1')).toEqual([
      {
        type: 'member.added',
        data: { group_id: 'g', wallet: 'w', role: 'viewer', at: 1, proposal_id: 'p-1' },
      },
      { type: 'group.unfrozen', data: { group_id: 'g', at: 1, proposal_id: 'p-1' } },
    ]);
    expect(events.map((e) => 'proposal_id' in e.data)).toEqual([false, false]);
  });

  it('stamps nothing on a change made at once: the same events, in a new list', () => {
    const atOnce = byProposal(events);
    expect(atOnce).toEqual(events);
    expect(atOnce).not.toBe(events);
  });
});
