import { failingDependencies, readinessAnswer } from './readiness';

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
});
