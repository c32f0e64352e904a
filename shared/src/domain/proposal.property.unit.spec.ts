/**
 * Property: no sequence of signatures (by admins, a viewer, a stranger, forged), cancels, freezes and
 * clock moves lets a proposal execute without a quorum of distinct admins' valid signatures, its
 * governance delay passed, before its expiry and not cancelled; and with one it always may. A freeze
 * by any one admin holds at once, whatever is pending (narrowing never waits), and only the proposal's
 * execution lifts it. The rules under test are proposal.ts's and governance.ts's.
 */
import bs58 from 'bs58';
import fc from 'fast-check';
import { derivedSigner } from '../chain/keys';
import { T0 } from '@tokenops/testing/domain/fixtures';
import type { GovernanceEvent, GroupCreated, ProposalEvent } from './events';
import {
  authorizeMember,
  decideFreezeGroup,
  decideUnfreezeGroup,
  evolveGovernance,
  foldGovernance,
  type GovernanceState,
} from './governance';
import {
  PROPOSAL_TTL_MS,
  decideCancel,
  decideExecuted,
  decidePropose,
  decideSign,
  evolveProposals,
  initialProposalsState,
  proposalIdOf,
  type ProposalsState,
} from './proposal';
import { ServiceError } from '../errors';

const GROUP = 'prop-team';
const WALLETS = ['creator', 'alice', 'bob', 'viewer', 'stranger'].map((n) =>
  derivedSigner('proposal-property', n),
);
const [CREATOR, ALICE, BOB, VIEWER] = WALLETS as [
  (typeof WALLETS)[0],
  (typeof WALLETS)[0],
  (typeof WALLETS)[0],
  (typeof WALLETS)[0],
];
const ADMINS = new Set([CREATOR.address, ALICE.address, BOB.address]);
const created: GroupCreated = {
  type: 'group.created',
  data: {
    group_id: GROUP,
    owner_wallet: CREATOR.address,
    base_mint: VIEWER.address,
    default_limits: { per_tx_limit: '1', daily_limit: '1', hourly_tx_cap: 1 },
    at: T0,
  },
};
const governance = (quorum: number, delaySeconds = 0) =>
  foldGovernance([
    created,
    ...[ALICE, BOB].map<GovernanceEvent>((w) => ({
      type: 'member.added',
      data: { group_id: GROUP, wallet: w.address, role: 'admin', at: T0 },
    })),
    { type: 'member.added', data: { group_id: GROUP, wallet: VIEWER.address, role: 'viewer', at: T0 } },
    {
      type: 'governance.policy_set',
      data: {
        group_id: GROUP,
        quorum,
        delay_seconds: delaySeconds,
        safe_destination: CREATOR.address,
        at: T0,
      },
    },
  ]);

type Step =
  | { kind: 'sign'; who: number; forged: boolean }
  | { kind: 'cancel'; who: number }
  | { kind: 'freeze'; who: number }
  | { kind: 'wait'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('sign' as const),
    who: fc.integer({ min: 0, max: 4 }),
    forged: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('cancel' as const), who: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant('freeze' as const), who: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: PROPOSAL_TTL_MS / 3 }) }),
);

const DELAYS = [0, 60, 86_400];

it('executes exactly when distinct admins reached the quorum with valid signatures, its delay passed, in time, uncancelled; a freeze holds at once', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 3 }),
      fc.constantFrom(...DELAYS),
      fc.array(step, { maxLength: 12 }),
      (quorum, delaySeconds, steps) => {
        let gov: GovernanceState = governance(quorum, delaySeconds);
        const id = proposalIdOf(GROUP, '00000000-0000-4000-8000-000000000001');
        let now = T0;
        let state: ProposalsState = initialProposalsState();
        const apply = (events: ProposalEvent[]) => (state = events.reduce(evolveProposals, state));
        apply(
          decidePropose(
            {
              proposal_id: id,
              action: 'group.unfreeze',
              params: {},
              proposed_by: CREATOR.address,
              governance: gov,
              now,
            },
            state,
          ),
        );
        const message = state.proposals.get(id)!.proposed.message;
        const validSigners = new Set<string>();
        let quorumAt: number | undefined;
        let frozen = false;
        let cancelled = false;
        let expired = false;
        for (const s of steps) {
          if (s.kind === 'wait') {
            now += s.ms;
            continue;
          }
          const wallet = WALLETS[s.who]!;
          const over = cancelled || expired || now >= T0 + PROPOSAL_TTL_MS;
          try {
            if (s.kind === 'freeze') {
              authorizeMember(gov, wallet.address, 'admin');
              gov = decideFreezeGroup({ by: wallet.address, now }, gov).reduce(evolveGovernance, gov);
              frozen = true;
            } else if (s.kind === 'sign') {
              const text = s.forged ? `${message}\n(forged)` : message;
              const signature = bs58.encode(wallet.sign(Buffer.from(text, 'utf8')));
              apply(
                decideSign(
                  { proposal_id: id, wallet: wallet.address, signature, governance: gov, now },
                  state,
                ),
              );
              if (!over && ADMINS.has(wallet.address) && !s.forged) validSigners.add(wallet.address);
              if (quorumAt === undefined && validSigners.size >= quorum) quorumAt = now;
            } else {
              apply(decideCancel({ proposal_id: id, wallet: wallet.address, governance: gov, now }, state));
              if (!over && ADMINS.has(wallet.address)) cancelled = true;
            }
          } catch (err) {
            if (!(err instanceof ServiceError)) throw err;
          }
          if (now >= T0 + PROPOSAL_TTL_MS && !cancelled) expired = true;
          // Narrowing never waits: an admin's freeze holds from its own event on, whatever is pending.
          expect(gov.frozen !== undefined).toBe(frozen);
        }
        const shouldExecute =
          !cancelled &&
          now < T0 + PROPOSAL_TTL_MS &&
          quorumAt !== undefined &&
          now >= quorumAt + delaySeconds * 1000;
        let executed = false;
        try {
          decideExecuted({ proposal_id: id, governance: gov, now }, state);
          executed = true;
          if (gov.frozen) gov = decideUnfreezeGroup({ now }, gov).reduce(evolveGovernance, gov);
        } catch (err) {
          if (!(err instanceof ServiceError)) throw err;
        }
        expect(executed).toBe(shouldExecute);
        // Widening (the lift) only by the executed proposal.
        expect(gov.frozen !== undefined).toBe(frozen && !executed);
      },
    ),
    { numRuns: 500 },
  );
});
