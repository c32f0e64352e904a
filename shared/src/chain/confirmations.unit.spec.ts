import { Confirmations, type ConfirmationSource } from './confirmations';
import type { SignatureStatus } from './port';

// A node scripted by the test: notifications it sends when told, statuses and heights it answers.
function node(heights: number[] = [1]) {
  const listeners = new Map<string, (failed: boolean) => void>();
  const statuses = new Map<string, SignatureStatus>();
  const calls = { statuses: [] as string[][], unsubscribed: [] as string[] };
  let h = 0;
  const source: ConfirmationSource = {
    subscribe: (signature, settled) => {
      listeners.set(signature, settled);
      return () => {
        listeners.delete(signature);
        calls.unsubscribed.push(signature);
      };
    },
    statuses: async (signatures) => {
      calls.statuses.push([...signatures]);
      return signatures.map((s) => statuses.get(s) ?? 'unknown');
    },
    blockHeight: async () => heights[Math.min(h++, heights.length - 1)]!,
  };
  return {
    source,
    listeners,
    statuses,
    calls,
    notify: (s: string, failed = false) => listeners.get(s)?.(failed),
  };
}

describe('confirmation by subscription', () => {
  it('settles the moment the node notifies, without asking for any status', async () => {
    const n = node();
    const confirmations = new Confirmations(n.source, 60_000);
    const watch = confirmations.watch('a', 100n);
    n.notify('a');
    await expect(watch.done).resolves.toBeUndefined();
    expect(n.calls.statuses).toEqual([]);
    expect(confirmations.inFlight).toBe(0);
  });

  it('reports a transaction the node notifies as failed', async () => {
    const n = node();
    const watch = new Confirmations(n.source, 60_000).watch('a', 100n);
    n.notify('a', true);
    await expect(watch.done).rejects.toThrow(/transaction failed/);
  });

  it('checks everything whose notification is late in one batched status call', async () => {
    const n = node();
    const confirmations = new Confirmations(n.source, 5);
    n.statuses.set('a', 'confirmed');
    n.statuses.set('b', 'failed');
    const [a, b, c] = ['a', 'b', 'c'].map((s) => confirmations.watch(s, 100n));
    await expect(a!.done).resolves.toBeUndefined();
    await expect(b!.done).rejects.toThrow(/transaction failed/);
    expect(n.calls.statuses[0]).toEqual(['a', 'b', 'c']);
    n.statuses.set('c', 'confirmed');
    await expect(c!.done).resolves.toBeUndefined();
    expect(n.calls.unsubscribed).toEqual(['a', 'b', 'c']);
    confirmations.close();
  });

  it('reports a transaction that did not land before its blockhash expired', async () => {
    const n = node([99, 100, 101]);
    const watch = new Confirmations(n.source, 1).watch('a', 100n);
    await expect(watch.done).rejects.toThrow(/BlockhashExpired/);
    expect(n.calls.statuses.length).toBe(3);
  });

  it('still accepts one that landed right at expiry (the height is read before the statuses)', async () => {
    const n = node([101]);
    n.statuses.set('a', 'confirmed');
    await expect(new Confirmations(n.source, 1).watch('a', 100n).done).resolves.toBeUndefined();
  });

  it('fails what it checked when the node does not answer the check', async () => {
    const n = node();
    n.source.blockHeight = async () => {
      throw new Error('connect ECONNREFUSED');
    };
    await expect(new Confirmations(n.source, 1).watch('a', 100n).done).rejects.toThrow(/ECONNREFUSED/);
  });

  it('stops watching a transaction the node refused', async () => {
    const n = node();
    const confirmations = new Confirmations(n.source, 1);
    confirmations.watch('a', 100n).cancel();
    expect(confirmations.inFlight).toBe(0);
    expect(n.calls.unsubscribed).toEqual(['a']);
    await new Promise((r) => setTimeout(r, 10));
    expect(n.calls.statuses).toEqual([]);
  });
});

describe('the same transaction watched twice at once', () => {
  it('settles both waiters with one subscription, and a cancelled one does not stop the other', async () => {
    const n = node();
    const confirmations = new Confirmations(n.source, 60_000);
    const first = confirmations.watch('a', 100n);
    const second = confirmations.watch('a', 100n);
    const third = confirmations.watch('a', 100n);
    third.cancel(); // its send was refused (already processed)
    expect(n.calls.unsubscribed).toEqual([]);
    n.notify('a');
    await expect(first.done).resolves.toBeUndefined();
    await expect(second.done).resolves.toBeUndefined();
    expect(confirmations.inFlight).toBe(0);
  });
});
