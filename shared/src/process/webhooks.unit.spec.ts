import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Env } from './env';
import { testCertificates } from '@tokenops/testing/tls';
import { webhookSettings } from './webhooks';
import { allowedPrivate, normaliseHost } from '../net/allowed-hosts';

describe('the webhook settings from the environment', () => {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('default to no private host, no extra CA, 5 s base delay, retries for 3 days, 64 in flight', () => {
    const env = new Env({});
    expect(webhookSettings(env)).toEqual({
      allowedPrivateHosts: [],
      retryBaseMs: 5_000,
      retryForMs: 259_200_000,
      concurrency: 64,
    });
    expect(env.problems).toEqual([]);
  });

  it('read the allowed private hosts, comma-separated, as the sender compares them', () => {
    const env = new Env({
      WEBHOOK_ALLOWED_PRIVATE_HOSTS:
        ' Receiver.Local , 127.0.0.1,[::1], 0:0:0:0:0:ffff:7f00:1,0x7f000002,localhost,,',
    });
    expect(webhookSettings(env).allowedPrivateHosts).toEqual([
      'receiver.local',
      '127.0.0.1',
      '::1',
      '::ffff:7f00:1',
      '127.0.0.2',
      'localhost',
    ]);
    expect(env.problems).toEqual([]);
  });

  it('read a port after a host (that port only), an IPv6 address with a port in brackets', () => {
    const env = new Env({
      WEBHOOK_ALLOWED_PRIVATE_HOSTS:
        'Receiver.Local:8443, 127.0.0.2:443,[::1]:9000, [0:0:0:0:0:0:0:1]:9001, localhost:08443, ::1, 127.0.0.2:443',
    });
    expect(webhookSettings(env).allowedPrivateHosts).toEqual([
      'receiver.local:8443',
      '127.0.0.2:443',
      '[::1]:9000',
      '[::1]:9001',
      'localhost:8443',
      '::1',
    ]);
    expect(env.problems).toEqual([]);
  });

  it('report, by name, an entry with a scheme, a path, credentials or a port that is none', () => {
    const bad = [
      'https://receiver',
      'receiver/hooks',
      'user@receiver',
      'receiver:0',
      'receiver:65536',
      'receiver:',
      'receiver:http',
      'receiver:8443:1',
      '[::1]:',
      '[receiver]:8443',
      '[::1]8443',
    ];
    const env = new Env({ WEBHOOK_ALLOWED_PRIVATE_HOSTS: bad.join(',') });
    expect(webhookSettings(env).allowedPrivateHosts).toEqual([]);
    expect(env.problems).toEqual(
      bad.map(
        (h) =>
          `WEBHOOK_ALLOWED_PRIVATE_HOSTS: ${h} is not a host name or an IP address with an optional port (host or host:port, [IPv6]:port; no scheme, no path)`,
      ),
    );
  });

  it('read the extra CAs from WEBHOOK_CA_FILE', async () => {
    const [a, b] = await Promise.all([testCertificates(), testCertificates()]);
    const file = join(dir, 'cas.pem');
    writeFileSync(file, `${a.ca}\n${b.ca}`);
    const env = new Env({ WEBHOOK_CA_FILE: file });
    const ca = webhookSettings(env).ca!;
    expect(env.problems).toEqual([]);
    expect(ca.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(ca).toContain(a.ca.trim());
    expect(ca).toContain(b.ca.trim());
  });

  it('report a CA file that cannot be read, holds no certificate, or a broken one', async () => {
    const notPem = join(dir, 'key.pem');
    writeFileSync(notPem, (await testCertificates()).key);
    const broken = join(dir, 'broken.pem');
    writeFileSync(broken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    const missing = join(dir, 'missing.pem');
    const problems = [missing, notPem, broken].map((file) => {
      const env = new Env({ WEBHOOK_CA_FILE: file });
      expect(webhookSettings(env).ca).toBeUndefined();
      return env.problems;
    });
    expect(problems).toEqual([
      [`WEBHOOK_CA_FILE=${missing}: cannot be read (ENOENT)`],
      [`WEBHOOK_CA_FILE=${notPem}: expected PEM certificates (-----BEGIN CERTIFICATE-----)`],
      [`WEBHOOK_CA_FILE=${broken}: certificate 1 does not parse`],
    ]);
  });

  it('take the retry delays and the concurrency, and report values out of range', () => {
    const env = new Env({
      WEBHOOK_RETRY_BASE_MS: '1000',
      WEBHOOK_RETRY_FOR_MS: '3600000',
      WEBHOOK_CONCURRENCY: '8',
    });
    expect(webhookSettings(env)).toMatchObject({ retryBaseMs: 1_000, retryForMs: 3_600_000, concurrency: 8 });
    const bad = new Env({
      WEBHOOK_RETRY_BASE_MS: '5s',
      WEBHOOK_RETRY_FOR_MS: '10',
      WEBHOOK_CONCURRENCY: '0',
    });
    webhookSettings(bad);
    expect(bad.problems).toEqual([
      'WEBHOOK_RETRY_BASE_MS=5s: expected a whole number from 100 to 86400000',
      'WEBHOOK_RETRY_FOR_MS=10: expected a whole number from 60000 to 2592000000',
      'WEBHOOK_CONCURRENCY=0: expected a whole number from 1 to 1024',
    ]);
  });
});

describe('normalising a host', () => {
  it('reads IPv4 in any form the URL parser accepts, IPv6 in any spelling, names in lower case', () => {
    expect(['2130706433', '0x7f000001', '0177.0.0.1', '127.1'].map(normaliseHost)).toEqual(
      Array(4).fill('127.0.0.1'),
    );
    expect(['::1', '[::1]', '0:0:0:0:0:0:0:1'].map(normaliseHost)).toEqual(['::1', '::1', '::1']);
    expect(normaliseHost('Hooks.EXAMPLE.com.')).toBe('hooks.example.com');
    expect(normaliseHost('')).toBeUndefined();
  });
});

describe('what the allowed hosts open', () => {
  const { allows, opensOtherPorts } = allowedPrivate(['127.0.0.2:8443', 'hooks.test', '[::1]:9000']);

  it('a host:port entry opens that port only; a host entry every port', () => {
    expect(allows('127.0.0.2', 8443)).toBe(true);
    expect(allows('127.0.0.2', 8080)).toBe(false);
    expect(allows('127.0.0.2', 443)).toBe(false);
    expect(allows('hooks.test', 1)).toBe(true);
    expect(allows('HOOKS.test.', 65_535)).toBe(true);
    expect(allows('::1', 9000)).toBe(true);
    expect(allows('[0:0:0:0:0:0:0:1]', 9000)).toBe(true);
    expect(allows('::1', 9001)).toBe(false);
    expect(allows('127.0.0.1', 8443)).toBe(false);
  });

  it('says which ports a host is opened on, to name them in a refusal', () => {
    expect(opensOtherPorts('127.0.0.2')).toEqual([8443]);
    expect(opensOtherPorts('hooks.test')).toEqual([]);
    expect(opensOtherPorts('10.0.0.1')).toEqual([]);
  });
});
