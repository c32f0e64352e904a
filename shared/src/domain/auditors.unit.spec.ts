/**
 * The group's auditors: an owner grants and removes read-only access to its log for a wallet, and the
 * group decides who may read it (its owner and its current auditors).
 */
import {
  authorizeReader,
  decideGrantAuditor,
  decideRemoveAuditor,
  evolveGroup,
  initialGroupState,
  type GroupState,
} from './group';
import type { GroupEvent } from './events';
import { GROUP, OWNER, STRANGER, T0, address, group, groupEvents } from '@tokenops/testing/domain/fixtures';
import { codeOf } from '@tokenops/testing/errors';
import { DeciderSpecification } from '@tokenops/testing/domain/specification';

const AUDITOR = address('auditor');

const grant = DeciderSpecification.for<Parameters<typeof decideGrantAuditor>[0], GroupState, GroupEvent>({
  decide: decideGrantAuditor,
  evolve: evolveGroup,
  initialState: initialGroupState,
});
const remove = DeciderSpecification.for<Parameters<typeof decideRemoveAuditor>[0], GroupState, GroupEvent>({
  decide: decideRemoveAuditor,
  evolve: evolveGroup,
  initialState: initialGroupState,
});
const granted = (wallet: string, at = T0): GroupEvent => ({
  type: 'auditor.granted',
  data: { group_id: GROUP, wallet, at },
});
const removed = (wallet: string, at = T0): GroupEvent => ({
  type: 'auditor.removed',
  data: { group_id: GROUP, wallet, at },
});

describe('auditors of a group', () => {
  it('are granted with an auditor.granted event naming the wallet', () => {
    grant
      .given(groupEvents())
      .when({ wallet: AUDITOR, now: T0 + 1 })
      .then([{ type: 'auditor.granted', data: { group_id: GROUP, wallet: AUDITOR, at: T0 + 1 } }]);
  });

  it('granting an auditor again records nothing', () => {
    grant
      .given([...groupEvents(), granted(AUDITOR)])
      .when({ wallet: AUDITOR, now: T0 })
      .thenNothing();
  });

  it('cannot include the owner, who reads its group already', () => {
    grant.given(groupEvents()).when({ wallet: OWNER, now: T0 }).thenThrows('conflict');
  });

  it('belong to a group that exists', () => {
    grant.given([]).when({ wallet: AUDITOR, now: T0 }).thenThrows('not_found');
    remove.given([]).when({ wallet: AUDITOR, now: T0 }).thenThrows('not_found');
  });

  it('are removed with an auditor.removed event', () => {
    remove
      .given([...groupEvents(), granted(AUDITOR)])
      .when({ wallet: AUDITOR, now: T0 + 5 })
      .then([{ type: 'auditor.removed', data: { group_id: GROUP, wallet: AUDITOR, at: T0 + 5 } }]);
  });

  it('removing a wallet that is not an auditor (any more) is not_found', () => {
    remove.given(groupEvents()).when({ wallet: AUDITOR, now: T0 }).thenThrows('not_found');
    remove
      .given([...groupEvents(), granted(AUDITOR), removed(AUDITOR)])
      .when({ wallet: AUDITOR, now: T0 })
      .thenThrows('not_found');
  });

  it('are folded into the state: granted, removed, granted again', () => {
    expect([...group([...groupEvents(), granted(AUDITOR), granted(STRANGER)]).auditors]).toEqual([
      AUDITOR,
      STRANGER,
    ]);
    expect([...group([...groupEvents(), granted(AUDITOR), removed(AUDITOR)]).auditors]).toEqual([]);
    expect([
      ...group([...groupEvents(), granted(AUDITOR), removed(AUDITOR), granted(AUDITOR)]).auditors,
    ]).toEqual([AUDITOR]);
  });

  it('read the group with its owner; nobody else does, and nobody reads a group that does not exist', () => {
    const state = group([...groupEvents(), granted(AUDITOR)]);
    expect(() => authorizeReader(state, OWNER)).not.toThrow();
    expect(() => authorizeReader(state, AUDITOR)).not.toThrow();
    expect(codeOf(() => authorizeReader(state, STRANGER))).toBe('forbidden');
    expect(
      codeOf(() => authorizeReader(group([...groupEvents(), granted(AUDITOR), removed(AUDITOR)]), AUDITOR)),
    ).toBe('forbidden');
    expect(codeOf(() => authorizeReader(initialGroupState(), OWNER))).toBe('not_found');
  });
});
