import { gatherTurn } from './turn';

describe('gatherTurn', () => {
  it('sends what one turn asked in one batch, in order, each caller its own result', async () => {
    const batches: number[][] = [];
    const double = gatherTurn(async (batch: number[]) => {
      batches.push(batch);
      return batch.map((n) => n * 2);
    });
    const first = await Promise.all([double(1), double(2), Promise.resolve().then(() => double(3))]);
    const second = await double(4);
    expect(first).toEqual([2, 4, 6]);
    expect(second).toBe(8);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('fails every caller of a batch that failed, and the next turn starts afresh', async () => {
    let calls = 0;
    const ask = gatherTurn(async (batch: string[]) => {
      calls += 1;
      if (calls === 1) throw new Error('the node is away');
      return batch.map((s) => s.toUpperCase());
    });
    const failed = await Promise.allSettled([ask('a'), ask('b')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((failed[0] as PromiseRejectedResult).reason).toEqual(new Error('the node is away'));
    expect(await ask('c')).toBe('C');
  });

  it('refuses a batch answered with a result missing, rather than leave a caller without one', async () => {
    const ask = gatherTurn(async (batch: number[]) => batch.slice(1));
    await expect(Promise.all([ask(1), ask(2)])).rejects.toThrow('a batch of 2 answered 1 results');
  });
});
