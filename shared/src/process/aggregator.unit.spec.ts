import { Env } from './env';
import { aggregatorConfig } from './aggregator';

describe('the aggregator settings from the environment', () => {
  it('defaults to a 5 s timeout and Jupiter at api.jup.ag/swap/v1, with no API key', () => {
    const env = new Env({});
    expect(aggregatorConfig(env)).toEqual({
      timeoutMs: 5_000,
      jupiter: { baseUrl: 'https://api.jup.ag/swap/v1', timeoutMs: 5_000 },
    });
    expect(env.problems).toEqual([]);
  });

  it('takes AGGREGATOR_TIMEOUT_MS, JUPITER_API_URL and JUPITER_API_KEY', () => {
    const env = new Env({
      AGGREGATOR_TIMEOUT_MS: '2500',
      JUPITER_API_URL: 'http://127.0.0.1:9000/swap/v1',
      JUPITER_API_KEY: 'secret',
    });
    expect(aggregatorConfig(env)).toEqual({
      timeoutMs: 2_500,
      jupiter: { baseUrl: 'http://127.0.0.1:9000/swap/v1', timeoutMs: 2_500, apiKey: 'secret' },
    });
  });

  it('reports a timeout that is not a whole number of milliseconds, and a URL that is not one', () => {
    const env = new Env({ AGGREGATOR_TIMEOUT_MS: '5s', JUPITER_API_URL: 'ftp://x' });
    aggregatorConfig(env);
    expect(env.problems).toEqual([
      'AGGREGATOR_TIMEOUT_MS=5s: expected a whole number from 100 to 60000',
      'JUPITER_API_URL: expected a https: or http: URL, got ftp:',
    ]);
  });
});
