/**
 * Given / when / then over events, after Emmett's `DeciderSpecification`: a domain test reads as the
 * rule it proves.
 *
 *   DeciderSpecification.for(settleIntent)
 *     .given([registered(AGENT_A), accepted('i', '10', T0)])
 *     .when({ intent_id: 'i', outcome: { status: 'confirmed', tx_sig: 'sig' }, now: T0 })
 *     .then([{ type: 'intent.confirmed', data: { intent_id: 'i', agent_id: AGENT_A, tx_sig: 'sig', at: T0 } }]);
 *
 * `given` folds the past events with the decider's own `evolve` from its `initialState`, so a test never
 * builds a state by hand that the events could not produce.
 */
import type { Decider, ErrorCode } from '@tokenops/shared';
import { thrownBy } from '../errors';

export interface Then<Event> {
  /** The decision is exactly these new events, no field more (matchers such as `expect.objectContaining` allowed). */
  then(expected: Event[]): void;
  /** The decision records nothing: the command is already satisfied, or does not apply. */
  thenNothing(): void;
  /** The decision is refused with this code (and, for a validation error, this detail path). */
  thenThrows(code: ErrorCode, path?: string): void;
}

export interface Given<Command, State, Event> {
  when(command: Command): Then<Event>;
  /** The state the past events fold into, for a rule about what a stream remembers. */
  state(): State;
}

export const DeciderSpecification = {
  for<Command, State, Event>(decider: Decider<Command, State, Event>) {
    return {
      given(events: readonly Event[]): Given<Command, State, Event> {
        const state = () => events.reduce(decider.evolve, decider.initialState());
        return {
          state,
          when(command) {
            const decide = () => decider.decide(command, state());
            return {
              then: (expected) => expect(decide()).toStrictEqual(expected),
              thenNothing: () => expect(decide()).toEqual([]),
              thenThrows: (code, path) => {
                const err = thrownBy(decide);
                expect(err.code).toBe(code);
                if (path !== undefined) expect(err.details?.map((d) => d.path)).toEqual([path]);
              },
            };
          },
        };
      },
    };
  },
};
