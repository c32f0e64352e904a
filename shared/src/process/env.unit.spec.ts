import { ConfigError, Env } from './env';
import { SETTING_NAMES, settingSpec, type IntSetting, type ProcessName } from '../settings/catalogue';

const problemsOf = (
  vars: NodeJS.ProcessEnv,
  read: (env: Env) => void,
  role: ProcessName = 'api',
): string[] => {
  const env = new Env(vars, role);
  read(env);
  try {
    env.check();
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
};

const server = (env: Env) => {
  env.eventStore();
  env.redis();
  env.chain({ rpc: true });
  env.secret('KEY_ENCRYPTION_KEY');
  env.int('PORT');
};

describe('server configuration from the environment', () => {
  it('reports every problem at once, by name, with what is expected', () => {
    const problems = problemsOf({ PORT: 'eighty', KEY_ENCRYPTION_KEY: 'c2hvcnQ=' }, server);
    expect(problems).toEqual([
      expect.stringMatching(/^EVENTSTORE_URL is required/),
      expect.stringMatching(/^REDIS_URL is required/),
      expect.stringMatching(/^SOLANA_RPC_URL is required/),
      'KEY_ENCRYPTION_KEY: expected 32 bytes in base64, got 5 bytes',
      'PORT=eighty: expected a whole number from 0 to 65535',
    ]);
  });

  it('refuses a URL of the wrong kind and a bad schema name', () => {
    const problems = problemsOf(
      { EVENTSTORE_URL: 'mysql://h/db', EVENTSTORE_SCHEMA: 'Drop;', REDIS_URL: 'http://h' },
      (env) => {
        env.eventStore();
        env.redis();
      },
    );
    expect(problems).toEqual([
      'EVENTSTORE_URL: expected a postgres: or postgresql: or esdb: or esdb+discover: URL, got mysql:',
      expect.stringMatching(/^EVENTSTORE_SCHEMA=Drop;/),
      'REDIS_URL: expected a redis: or rediss: URL, got http:',
    ]);
  });

  it('reads a complete configuration: PostgreSQL or EventStoreDB, the local chain by its seed', () => {
    const vars = {
      EVENTSTORE_URL: 'postgres://u@db:5432/x',
      REDIS_URL: 'redis://r:6379',
      SOLANA_RPC_URL: 'http://chain:8899',
      KEY_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      EVENTSTORE_POOL: '5',
    };
    const env = new Env(vars);
    expect(env.eventStore()).toEqual({
      kind: 'postgres',
      url: vars.EVENTSTORE_URL,
      schema: 'tokenops',
      pool: 5,
    });
    expect(env.redis()).toEqual({ url: vars.REDIS_URL, prefix: 'tokenops' });
    const chain = env.chain({ rpc: true });
    expect(chain).toMatchObject({
      kind: 'local',
      urls: [vars.SOLANA_RPC_URL],
      rpc: { timeoutMs: 30_000, maxSlotLag: 50 },
      seed: 'local-chain',
    });
    expect(chain.tokens.map((t) => t.symbol)).toEqual(['USDC', 'SOL', 'kUSDC', 'kSOL']);
    env.check();
    expect(new Env({ EVENTSTORE_URL: 'esdb://es:2113?tls=false' }).eventStore()).toEqual({
      kind: 'eventstoredb',
      url: 'esdb://es:2113?tls=false',
    });
  });

  it('takes several RPC nodes, comma-separated, and refuses any that is not an http(s) URL', () => {
    const env = new Env({
      SOLANA_RPC_URL: 'https://a.example/key-1 , https://b.example:8443/?api-key=2',
      SOLANA_RPC_MAX_SLOT_LAG: '20',
      SOLANA_RPC_TIMEOUT_MS: '2000',
    });
    expect(env.chain({ rpc: true })).toMatchObject({
      urls: ['https://a.example/key-1', 'https://b.example:8443/?api-key=2'],
      rpc: { timeoutMs: 2_000, maxSlotLag: 20 },
    });
    expect(
      problemsOf({ SOLANA_RPC_URL: 'http://a:8899,ws://b:8900' }, (e) => e.chain({ rpc: true })),
    ).toEqual(['SOLANA_RPC_URL: expected a http: or https: URL, got ws:']);
    // A value that is not a URL is not shown: it may carry a provider's key.
    expect(problemsOf({ SOLANA_RPC_URL: 'http://a:8899,key-SECRET' }, (e) => e.chain({ rpc: true }))).toEqual(
      ['SOLANA_RPC_URL: not a URL (`http://127.0.0.1:8899`, or several comma-separated)'],
    );
    expect(problemsOf({}, (e) => e.chain({ rpc: true }))).toEqual([
      expect.stringMatching(/^SOLANA_RPC_URL is required/),
    ]);
  });

  it('a real cluster needs the fee payer, the treasury and the token registry', () => {
    const problems = problemsOf(
      { SOLANA_RPC_URL: 'https://api.mainnet-beta.solana.com', FEE_PAYER_SECRET: 'x' },
      (env) => env.chain({ rpc: true }),
    );
    expect(problems).toEqual([
      'FEE_PAYER_SECRET: expected a base58 32-byte ed25519 seed',
      expect.stringMatching(/^TREASURY_ADDRESS is required/),
      expect.stringMatching(/^TOKENS is required/),
    ]);
  });
});

describe('every setting is read by its catalogue entry', () => {
  it('refuses a number outside its bounds, naming the setting and the bounds, in every process that reads it', () => {
    for (const name of SETTING_NAMES) {
      const spec = settingSpec(name);
      if (spec.type !== 'int') continue;
      for (const role of spec.processes)
        for (const bad of [String(spec.max + 1), String(spec.min - 1), '1.5', 'ten']) {
          const env = new Env({ [name]: bad }, role);
          env.int(name as IntSetting);
          expect(env.problems).toEqual([
            `${name}=${bad}: expected a whole number from ${spec.min} to ${spec.max}`,
          ]);
        }
    }
  });

  it('reads the same bounds in the embedded default and the API (OUTCOME_TIMEOUT_MS from 1 ms)', () => {
    for (const role of ['embedded', 'api'] as const) {
      expect(new Env({ OUTCOME_TIMEOUT_MS: '1' }, role).int('OUTCOME_TIMEOUT_MS')).toBe(1);
      expect(problemsOf({ OUTCOME_TIMEOUT_MS: '0' }, (env) => env.int('OUTCOME_TIMEOUT_MS'), role)).toEqual([
        'OUTCOME_TIMEOUT_MS=0: expected a whole number from 1 to 600000',
      ]);
    }
  });

  it('refuses a flag that is neither true nor false, and a level it does not know', () => {
    const read = (env: Env) => [env.flag('DEMO'), env.logLevel()];
    expect(problemsOf({ DEMO: 'yes', LOG_LEVEL: 'loud' }, read, 'embedded')).toEqual([
      'DEMO=yes: expected true or false',
      'LOG_LEVEL=loud: expected error, warn, info, debug, silent',
    ]);
  });
});
