import { checkPublicUrl, classifyAddress, isPublicAddress, type Resolver } from './address-guard';

describe('classifyAddress: public internet or not', () => {
  it.each([
    '93.184.216.34',
    '1.1.1.1',
    '8.8.8.8',
    '2606:2800:220:1:248:1893:25c8:1946',
    '[2a00:1450:4001:82b::200e]',
    '::ffff:93.184.216.34', // IPv4-mapped, of a public address
    '::ffff:5db8:d822',
    '64:ff9b::5db8:d822', // NAT64 of 93.184.216.34
    '2002:5db8:d822::1', // 6to4 of 93.184.216.34
  ])('%s is public', (address) => expect(classifyAddress(address)).toMatchObject({ public: true }));

  it.each([
    // IPv4 special-purpose ranges
    ['0.0.0.0', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.8', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // IPv6 special-purpose ranges
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['100::1', 'discard'],
    ['64:ff9b:1::5db8:d822', 'rfc6052'], // local-use NAT64: not globally reachable
    ['4000::1', 'outside global unicast'],
    // IPv4 addresses wrapped in IPv6: every form is unwrapped
    ['::ffff:127.0.0.1', 'carries 127.0.0.1'],
    ['::ffff:7f00:1', 'carries 127.0.0.1'],
    ['::ffff:0:a00:8', 'carries 10.0.0.8'], // IPv4-translated
    ['::7f00:1', 'carries 127.0.0.1'], // IPv4-compatible
    ['::127.0.0.1', 'carries 127.0.0.1'],
    ['::a9fe:a9fe', 'carries 169.254.169.254'],
    ['64:ff9b::7f00:1', 'carries 127.0.0.1'], // NAT64
    ['64:ff9b::a00:8', 'carries 10.0.0.8'],
    ['2002:7f00:1::', 'carries 127.0.0.1'], // 6to4
    ['2002:c0a8:101::1', 'carries 192.168.1.1'],
    ['2001:0:5db8:d822::80ff:fff7', 'carries 127.0.0.8'], // Teredo: client 127.0.0.8 (inverted)
    ['2001:0:7f00:1::a2ff:5e2d', 'carries 127.0.0.1'], // Teredo: server 127.0.0.1
    // not addresses at all
    ['localhost', 'not an IP address'],
    ['fe80::1%eth0', 'scoped'],
    ['', 'not an IP address'],
  ])('%s is not public (%s)', (address, why) => {
    const verdict = classifyAddress(address);
    expect(verdict.public).toBe(false);
    expect(verdict.reason).toContain(why);
  });

  it('isPublicAddress is the verdict alone', () => {
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    expect(isPublicAddress('[::7f00:1]')).toBe(false);
  });
});

describe('checkPublicUrl: a URL a webhook may be delivered to', () => {
  const dns =
    (answers: Record<string, string[]>): Resolver =>
    async (host) => {
      const found = answers[host];
      if (!found) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return found;
    };
  const none = dns({});

  it('accepts https to a public address and says where to connect', async () => {
    expect(await checkPublicUrl('https://93.184.216.34/hook', none)).toMatchObject({
      ok: true,
      addresses: ['93.184.216.34'],
    });
    expect(
      await checkPublicUrl(
        'https://hooks.example.com:8443/x',
        dns({ 'hooks.example.com': ['93.184.216.34'] }),
      ),
    ).toMatchObject({ ok: true, addresses: ['93.184.216.34'] });
  });

  it.each([
    ['https://93.184.216.34:99999/hook', 'is not a valid URL'],
    ['https://', 'is not a valid URL'],
    ['https://exa%00mple.com/', 'is not a valid URL'],
    ['https://1.2.3.4.5/', 'is not a valid URL'],
    ['https://[::1/', 'is not a valid URL'],
    ['not a url', 'is not a valid URL'],
    ['http://93.184.216.34/', 'must use https'],
    ['https://user:pw@93.184.216.34/', 'must not carry credentials'],
    ['https://user@93.184.216.34/', 'must not carry credentials'],
    ['https://:pw@93.184.216.34/', 'must not carry credentials'],
    ['https://93.184.216.34:0/', 'must not use port 0'],
    ['https://nowhere.example/', 'does not resolve'],
  ])('refuses %s: %s', async (url, issue) => {
    expect(await checkPublicUrl(url, none)).toEqual({ ok: false, issue });
  });

  it.each([
    // IPv4 host forms the WHATWG parser (and so fetch) reads as 127.0.0.1 or 10.0.0.1
    'https://2130706433/',
    'https://0x7f000001/',
    'https://0x7f.1/',
    'https://0177.0.0.1/',
    'https://127.1/',
    'https://017700000001/',
    'https://0xa.1/',
    // IPv6 forms
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::7f00:1]/',
    'https://[2002:7f00:1::]/',
    'https://[fec0::1]/',
    'https://[64:ff9b::7f00:1]/',
    'https://[64:ff9b:1::1]/',
    'https://[2001:0:7f00:1::a2ff:5e2d]/',
  ])('refuses %s (a non-public address in disguise)', async (url) => {
    const verdict = await checkPublicUrl(url, none);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.issue).toMatch(/^must resolve to public addresses only/);
  });

  it('refuses a name when any one of its addresses is not public (no choosing the good one)', async () => {
    const verdict = await checkPublicUrl(
      'https://rebind.example/',
      dns({ 'rebind.example': ['93.184.216.34', '::ffff:10.0.0.1'] }),
    );
    expect(verdict).toEqual({
      ok: false,
      issue:
        'must resolve to public addresses only (::ffff:10.0.0.1: carries 10.0.0.1 (private IPv4 address))',
    });
    expect(await checkPublicUrl('https://empty.example/', dns({ 'empty.example': [] }))).toEqual({
      ok: false,
      issue: 'does not resolve',
    });
  });
});
