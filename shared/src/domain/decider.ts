/**
 * The shape of the domain's rules, after Emmett's and Jérémie Chassaing's deciders: a stream's events
 * fold into its state (`evolve` from `initialState`), and a command decided on that state answers new
 * events (or throws a refusal). The application loads a stream with its fold (Repository) and calls
 * the decide functions; the domain's tests state each rule as given events, when a command, then events.
 */
export interface Decider<Command, State, Event> {
  decide: (command: Command, state: State) => Event[];
  evolve: (state: State, event: Event) => State;
  initialState: () => State;
}

/** How a stream's events fold into its state: the part of a decider that loading the stream needs. */
export type Fold<State, Event> = Pick<Decider<never, State, Event>, 'evolve' | 'initialState'>;
