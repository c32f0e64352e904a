import { assessDependencies, failingDependencies, readinessAnswer } from './readiness';

const never = () => new Promise<never>(() => undefined);

describe('readiness', () => {
  it('names every dependency that fails or does not answer in time, and only those', async () => {
    const started = Date.now();
    const failing = await failingDependencies(
      {
        eventstore: async () => 1,
        redis: async () => {
          throw new Error('connection refused');
        },
        chain: never,
      },
      200,
    );
    expect(failing.sort()).toEqual(['chain', 'redis']);
    expect(Date.now() - started).toBeLessThan(2_000); // the checks run at once, each bounded
  });

  it('answers 200 ready when nothing fails, 503 naming the failing ones otherwise', () => {
    expect(readinessAnswer([])).toEqual({ status: 200, body: { status: 'ready' } });
    expect(readinessAnswer(['chain'])).toEqual({
      status: 503,
      body: { status: 'not ready', failing: ['chain'] },
    });
  });

  it('shows what a check reports, whether it passes or fails, under nodes by its name', async () => {
    const nodes = [
      { node: 'a:8899', healthy: false, reason: 'connect ECONNREFUSED' },
      { node: 'b:8899', healthy: true },
    ];
    const ready = await assessDependencies(
      { eventstore: async () => 1, chain: async () => ({ report: nodes }) },
      200,
    );
    expect(readinessAnswer(ready)).toEqual({
      status: 200,
      body: { status: 'ready', nodes: { chain: nodes } },
    });
    const down = await assessDependencies(
      {
        chain: async () => {
          throw Object.assign(new Error('no RPC node is healthy'), { report: [nodes[0]] });
        },
      },
      200,
    );
    expect(readinessAnswer(down)).toEqual({
      status: 503,
      body: { status: 'not ready', failing: ['chain'], nodes: { chain: [nodes[0]] } },
    });
  });
});
