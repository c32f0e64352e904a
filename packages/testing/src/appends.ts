/**
 * A test's hand on a store's appends: `aroundAppends` wraps each append from now on, alone or atomic
 * (its streams' events flattened), with `around`, which sees the events and lands them, or not. A
 * suite counts what is appended together with it, or makes one append fail. Jest spies on the store
 * the service uses: restored by the returned function, or by `jest.restoreAllMocks` (embeddedSuite).
 */
import type { EventStore, NewEvent } from '@tokenops/shared';

export type AroundAppend = <R>(events: readonly NewEvent[], land: () => Promise<R>) => Promise<R>;

export function aroundAppends(store: EventStore, around: AroundAppend): () => void {
  const append = store.append.bind(store);
  const spies: { mockRestore(): void }[] = [
    jest
      .spyOn(store, 'append')
      .mockImplementation((stream, events, expected) =>
        around(events, () => append(stream, events, expected)),
      ),
  ];
  if (store.appendAtomically) {
    const atomically = store.appendAtomically.bind(store);
    spies.push(
      jest.spyOn(store, 'appendAtomically').mockImplementation((appends) =>
        around(
          appends.flatMap((a) => a.events),
          () => atomically(appends),
        ),
      ),
    );
  }
  return () => spies.forEach((s) => s.mockRestore());
}
