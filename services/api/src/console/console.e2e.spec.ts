/**
 * The operator console, as an operator uses it: in a real headless Chromium (Debian's `chromium`, or
 * CHROMIUM_PATH), signed in by a Wallet Standard wallet injected into the page (it signs in this
 * process with the operator's key), the operator creates a group, allow-lists a recipient, invites an
 * agent; the agent (over the agent API) registers and pays the recipient, and the page shows the
 * spend live and its daily gauge move; an approval policy previewed and applied, and the agent's held
 * transfers approved (the page signs with the wallet) and rejected in the approvals inbox; then a key
 * rotated (the old one refused), the agent revoked; an agent and then the whole group frozen in the
 * page (their spends refused) and the freezes lifted by a signature made in the page; with a quorum of
 * two admins, a proposal of the other admin signed in the inbox and one cancelled there, a member and a
 * governance change proposed in the page and made by the other admin's signature; the group's own limits
 * set with their gauges (a rise waiting for the other admin) and a guard rule added, read back after a
 * reload, then tripped by an agent's two quick spends: frozen by the guard on the agents page, in what
 * tripped recently and on the overview, and a spend a rule held naming it in the inbox; the log verified,
 * each governed change with its quorum. axe-core checks every page, at 1280x800 and at a phone's
 * width. The console's server-sent events are tested over HTTP too: a client that reconnects with
 * Last-Event-ID misses nothing. It runs on the embedded service and again on the server topology.
 *
 * CONSOLE_SCREENSHOTS=<folder> (npm run console:screenshots) saves the pages' screenshots there for
 * docs/console.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import bs58 from 'bs58';
import { EventSourceParserStream, type EventSourceMessage } from 'eventsource-parser/stream';
import { SignJWT } from 'jose';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { generateSigner } from '@tokenops/shared';
import {
  RECEIVER_HOST,
  key,
  signIn,
  stackWebhookTls,
  startWorld,
  until,
  type World,
  type Operator,
  type ProposalReply,
  enact,
  invitation,
  signProposal,
} from '@tokenops/testing/harness';
import { startReceiver, testCertificates, type Receiver } from '@tokenops/testing/tls';
import { TcpProxy } from '@tokenops/testing/tcp-proxy';
import { seedGroup } from '@tokenops/testing/seeded-group';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let world: World;
let browser: Browser;
/** A webhook receiver (HTTPS, on the loopback address the service's policy lets through in tests). */
let receiver: Receiver;
/** A port of the receiver's address that no one listens on. */
let downPort: number;

beforeAll(async () => {
  // The bundle as the sources are now (npm ci builds it too), by the project's own script.
  execFileSync(process.execPath, [join(__dirname, '../../../../packages/console/scripts/build.mjs')]);
  // On the server topology the delivery worker is a process of its own, with the stack's CA.
  const tls = stackWebhookTls() ?? (await testCertificates({ addresses: [RECEIVER_HOST] }));
  receiver = await startReceiver({ tls, host: RECEIVER_HOST });
  // The receiver's port, and one no one listens on (a webhook whose every delivery fails).
  downPort = await closedPort();
  [world, browser] = await Promise.all([
    startWorld({
      // One wallet drives every page of the console here, in about a minute: more than the 600
      // requests a minute the operator routes allow one wallet by default (a person at the console
      // makes far fewer), which the suite is not about.
      operatorRateLimitPerMinute: 2_000,
      webhooks: {
        allowedPrivateHosts: [`${RECEIVER_HOST}:${receiver.port}`, `${RECEIVER_HOST}:${downPort}`],
        ca: tls.ca,
        retryBaseMs: 100,
      },
    }),
    chromium.launch({ executablePath: CHROMIUM }),
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await world?.close();
  await receiver?.close();
});

const api = (path: string) => `${world.client.url}/api/v1${path}`;

/** An operator token of the world's operator that expires at `expiresAt` (seconds). */
const shortToken = (expiresAt: number) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(world.operator.wallet.address)
    .setIssuedAt()
    .setExpirationTime(expiresAt)
    .setAudience('tokenops-operator')
    .sign(world.service.jwtSecret);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('the console page', () => {
  it('is served at /console under a policy that allows this service only, and GET / points at it', async () => {
    const root = await world.client.call<{ console: string }>('GET', '/');
    expect(root.body.console).toBe('/console');
    const page = await fetch(`${world.client.url}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("style-src 'self';");
    expect(policy).toContain("connect-src 'self';");
    const html = await page.text();
    const script = /<script type="module" src="([^"]+)">/.exec(html)?.[1];
    expect(script).toBe('/console/assets/console.js');
    const bundle = await fetch(`${world.client.url}${script}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(10_000);
    expect((await fetch(`${world.client.url}/console/assets/nothing.js`)).status).toBe(404);
  });
});

/** Reads server-sent events until `enough` says so (or 10 s passed), then closes the connection. */
async function readEvents(
  group: string,
  enough: (got: EventSourceMessage[]) => boolean,
  lastEventId?: string,
  token = world.operator.token,
): Promise<EventSourceMessage[]> {
  const stop = new AbortController();
  const res = await fetch(api(`/orchestrator/groups/${group}/events`), {
    headers: {
      ...bearer(token),
      accept: 'text/event-stream',
      ...(lastEventId && { 'last-event-id': lastEventId }),
    },
    signal: stop.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = res
    .body!.pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  const got: EventSourceMessage[] = [];
  const timer = setTimeout(() => stop.abort(), 10_000);
  try {
    while (!enough(got)) {
      const { value, done } = await reader.read();
      if (done) break;
      got.push(value);
    }
  } catch {
    // the time was up: answer what came
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
  return got;
}

describe('GET /orchestrator/groups/{group}/events', () => {
  it('streams the group’s events from the log, and a client that reconnects with Last-Event-ID misses nothing', async () => {
    const group = world.groupId;
    // The world's group so far: created, its vendor allow-listed (and the entries that come with it).
    const first = await readEvents(group, (got) => got.length >= 2);
    expect(first[0]!.event).toBe('group.created');
    const last = first.at(-1)!;
    expect(JSON.parse(last.data)).toEqual(expect.objectContaining({ position: last.id, type: last.event }));

    // While no one listens, the operator allow-lists another recipient.
    const recipient = generateSigner().address;
    const added = await enact(
      world.client,
      [world.operator],
      'POST',
      `/api/v1/orchestrator/groups/${group}/whitelist`,
      { address: recipient, type: 1, approved_amount: '5', ttl_seconds: 3600 },
    );
    expect(added.body.status).toBe('executed');
    const isNew = (m: EventSourceMessage) =>
      m.event === 'whitelist.entry_added' && m.data.includes(recipient);
    // Reconnecting from the last id seen gives what came after it, the new entry included: the same
    // events, in the same order, as reading the whole log again.
    const resumed = await readEvents(group, (got) => got.some(isNew), last.id);
    expect(resumed.some(isNew)).toBe(true);
    const all = await readEvents(group, (got) => got.some(isNew));
    const after = all.findIndex((m) => m.id === last.id);
    expect(after).toBeGreaterThan(0);
    expect(resumed.map((m) => m.id)).toEqual(all.slice(after + 1).map((m) => m.id));
  });

  it('ends the stream when the operator’s token expires; the same token is then refused', async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 3;
    const token = await shortToken(expiresAt);
    const started = Date.now();
    const got = await readEvents(world.groupId, () => false, undefined, token); // until it ends
    expect(got[0]!.event).toBe('group.created');
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt * 1000);
    expect(Date.now() - started).toBeLessThan(9_000); // ended by the service, not by the test's 10 s
    const again = await world.client.call('GET', `/api/v1/orchestrator/groups/${world.groupId}/events`, {
      token,
      headers: { accept: 'text/event-stream' },
    });
    expect(again.status).toBe(401);
  });

  it('answers JSON (a page of events, since a time if asked) to a client that does not ask for a stream', async () => {
    const res = await fetch(api(`/orchestrator/groups/${world.groupId}/events`), {
      headers: bearer(world.operator.token),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { events: { type: string }[] };
    expect(body.events[0]!.type).toBe('group.created');
    // Only what was recorded since a time: nothing yet from the next hour on.
    const since = new Date(Date.now() + 3_600_000).toISOString();
    const later = await fetch(api(`/orchestrator/groups/${world.groupId}/events?since=${since}`), {
      headers: bearer(world.operator.token),
    });
    expect(later.status).toBe(200);
    expect(((await later.json()) as { events: unknown[] }).events).toEqual([]);
  });

  it('refuses a Last-Event-ID it did not send (400), no token (401), another operator’s group (403)', async () => {
    const bad = await world.client.call<{ error: string; details: { path: string }[] }>(
      'GET',
      `/api/v1/orchestrator/groups/${world.groupId}/events`,
      { token: world.operator.token, headers: { accept: 'text/event-stream', 'last-event-id': 'nonsense!' } },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_error');
    expect(bad.body.details[0]!.path).toBe('/Last-Event-ID');
    const anonymous = await world.client.call('GET', `/api/v1/orchestrator/groups/${world.groupId}/events`);
    expect(anonymous.status).toBe(401);
    const other = await world.client.call<{ group_config_pda: string }>(
      'POST',
      '/api/v1/orchestrator/groups',
      {
        token: world.operator.token,
        body: {},
      },
    );
    const stranger = await signIn(world.client);
    const foreign = await world.client.call(
      'GET',
      `/api/v1/orchestrator/groups/${other.body.group_config_pda}/events`,
      {
        token: stranger.token,
      },
    );
    expect(foreign.status).toBe(403);
  });
});

describe('GET /orchestrator/groups/{group}/spend and /usage', () => {
  it('refuses a window it does not know (400) and an unknown group (404)', async () => {
    const bad = await world.client.call<{ error: string }>(
      'GET',
      `/api/v1/orchestrator/groups/${world.groupId}/spend?window=1y`,
      { token: world.operator.token },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_error');
    const none = await world.client.call(
      'GET',
      `/api/v1/orchestrator/groups/${generateSigner().address}/usage`,
      {
        token: world.operator.token,
      },
    );
    expect(none.status).toBe(404);
  });
});

// ---- in the browser ----------------------------------------------------------------------------

/** What the functions run in the page use of its globals (the project's types have no DOM). */
interface InPage {
  testWalletSign(message: number[]): Promise<number[]>;
  addEventListener(type: string, listener: (e: { detail: unknown }) => void): void;
  dispatchEvent(event: unknown): boolean;
  CustomEvent: new (type: string, init: { detail: unknown }) => unknown;
  innerWidth: number;
  sessionStorage: {
    length: number;
    key(i: number): string | null;
    getItem(k: string): string | null;
    setItem(k: string, v: string): void;
  };
  localStorage: { length: number };
  navigator: { clipboard: { readText(): Promise<string> } };
  location: { href: string };
  document: {
    documentElement: { scrollWidth: number };
    activeElement: { getAttribute(name: string): string | null; blur(): void } | null;
    querySelectorAll(selector: string): {
      length: number;
      forEach(f: (e: { setAttribute(n: string, v: string): void }, i: number) => void): void;
    };
  };
  axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
}

/**
 * A Wallet Standard wallet registered in the page before it loads: `solana:signMessage` signs in this
 * test process with the operator's key (the page never sees it), as a browser wallet would.
 */
async function withWallet(context: BrowserContext): Promise<void> {
  const signer = world.operator.wallet;
  await context.exposeBinding('testWalletSign', (_source, message: number[]) =>
    Array.from(signer.sign(Uint8Array.from(message))),
  );
  await context.addInitScript(
    ({ address, publicKey }) => {
      const page = globalThis as unknown as InPage;
      const chains = ['solana:localnet'] as const;
      const account = {
        address,
        publicKey: Uint8Array.from(publicKey),
        chains,
        features: ['solana:signMessage'],
      };
      const wallet = {
        version: '1.0.0',
        name: 'Test Wallet',
        icon: 'data:image/svg+xml;base64,PHN2Zy8+',
        chains,
        accounts: [account],
        features: {
          'standard:connect': { version: '1.0.0', connect: async () => ({ accounts: [account] }) },
          'standard:events': { version: '1.0.0', on: () => () => undefined },
          'solana:signMessage': {
            version: '1.0.0',
            signMessage: async (...inputs: { message: Uint8Array }[]) =>
              Promise.all(
                inputs.map(async ({ message }) => ({
                  signedMessage: message,
                  signature: Uint8Array.from(await page.testWalletSign(Array.from(message))),
                })),
              ),
          },
        },
      };
      const callback = ({ register }: { register(w: unknown): void }) => register(wallet);
      page.addEventListener('wallet-standard:app-ready', (e) =>
        callback(e.detail as Parameters<typeof callback>[0]),
      );
      page.dispatchEvent(new page.CustomEvent('wallet-standard:register-wallet', { detail: callback }));
    },
    { address: signer.address, publicKey: Array.from(signer.publicKey) },
  );
}

/**
 * The serious and critical violations axe-core finds on the page as it is, and any form that would
 * let the browser's own validation bubbles show beside the console's errors (one without novalidate).
 */
async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the browser's protocol, so the page's policy (no inline script) does not apply.
  await page.evaluate(AXE);
  const found = await page.evaluate(
    async () => (await (globalThis as unknown as InPage).axe.run()).violations,
  );
  const validating = await page.evaluate(
    () => (globalThis as unknown as InPage).document.querySelectorAll('form:not([novalidate])').length,
  );
  return [
    ...found
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    ...(validating > 0 ? [`${validating} form(s) without novalidate`] : []),
  ];
}

async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Every control of the page is reached by Tab, in order. */
async function tabReachesEverything(page: Page): Promise<void> {
  const count = await page.evaluate(() => {
    const { document } = globalThis as unknown as InPage;
    const controls = document.querySelectorAll(
      'main a[href], main button:not([disabled]), main input:not([disabled]), main select:not([disabled]), header a[href], header button',
    );
    controls.forEach((c, i) => c.setAttribute('data-tab', String(i)));
    document.activeElement?.blur();
    return controls.length;
  });
  const reached = new Set<string>();
  for (let i = 0; i < count + 2; i++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() =>
      (globalThis as unknown as InPage).document.activeElement?.getAttribute('data-tab'),
    );
    if (at) reached.add(at);
  }
  expect(reached.size).toBe(count);
}

/** What the page keeps in its storage, as text. */
const stored = (page: Page) =>
  page.evaluate(() => {
    const { sessionStorage, localStorage } = globalThis as unknown as InPage;
    const keys = Array.from({ length: sessionStorage.length }, (_, i) => sessionStorage.key(i)!);
    return {
      session: Object.fromEntries(keys.map((k) => [k, sessionStorage.getItem(k)])),
      local: localStorage.length,
    };
  });

/** A port nothing listens on (the failing webhook's endpoint). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, RECEIVER_HOST, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the console in a browser', () => {
  let context: BrowserContext;
  let page: Page;
  const requested: string[] = [];
  const refused: string[] = [];
  const nativeDialogs: string[] = [];
  /** What the page threw and nobody caught. */
  const pageErrors: string[] = [];
  const checked: Record<string, string[]> = {};
  let url: string;
  /** The group the operator creates in the page, and its agents. */
  let group: string;
  let buyer: { id: string; key: string };
  let courier: { id: string; key: string };
  let sellerCode: string;
  const supplier = generateSigner().address;
  const landlord = generateSigner().address;
  const stranger = generateSigner().address;
  const groupPage = (section = '', query = '') =>
    `${url}/console#/groups/${encodeURIComponent(group)}${section && `/${section}`}${query && `?${query}`}`;
  const tab = (name: string) =>
    page.getByRole('navigation', { name: 'Group' }).getByRole('link', { name, exact: true });

  beforeAll(async () => {
    url = world.client.url;
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
    await withWallet(context);
    page = await context.newPage();
    page.on('request', (r) => void requested.push(r.url()));
    page.on('console', (m) => void (/Content Security Policy/.test(m.text()) && refused.push(m.text())));
    page.on('pageerror', (e) => void pageErrors.push(e.message));
    page.on('dialog', (d) => {
      nativeDialogs.push(d.message());
      void d.dismiss();
    });
  });
  afterAll(async () => context?.close());

  const axe = async (name: string) => {
    checked[name] = await axeViolations(page);
    await screenshot(page, name);
  };

  it('signs in with a keypair file opened in the page (never sent, never stored); a file that is no keypair gets a plain sentence; a wallet of no group sees so, and no control on a group it is not in', async () => {
    const other = await browser.newContext();
    try {
      const tab = await other.newPage();
      const signer = generateSigner();
      const keypair = JSON.stringify([...signer.seed, ...signer.publicKey]);
      const sent: string[] = [];
      tab.on('request', (r) => void sent.push(r.postData() ?? ''));
      await tab.goto(`${url}/console#/groups/${encodeURIComponent(world.groupId)}`);
      const file = tab.getByLabel('Keypair file (JSON)');
      await file.setInputFiles({
        name: 'notes.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('not json {'),
      });
      await tab
        .getByRole('alert')
        .getByText(
          /^This file is not a Solana keypair: a keypair file \(as solana-keygen writes it\) holds a JSON list of 64 numbers\.$/,
        )
        .waitFor();
      await file.setInputFiles({
        name: 'id.json',
        mimeType: 'application/json',
        buffer: Buffer.from(keypair),
      });
      // Signed in, on the page it asked for: a group of another wallet.
      await tab
        .getByRole('alert')
        .getByText(/is not a member of group/)
        .waitFor();
      expect(await tab.locator('main').getByRole('button').count()).toBe(0);
      expect(await tab.locator('main input, main select, main form').count()).toBe(0);
      expect(await tab.getByRole('navigation', { name: 'Group' }).count()).toBe(0);
      await tab.locator('main').getByRole('link', { name: 'Your groups' }).click();
      await tab
        .getByText('The wallet you signed in with is a member of no group yet: create one below.')
        .waitFor();
      expect(sent.some((body) => body.includes(keypair) || body.includes(bs58.encode(signer.seed)))).toBe(
        false,
      );
      const kept = await stored(tab);
      expect(kept.local).toBe(0);
      const text = JSON.stringify(kept.session);
      expect(text).not.toContain(bs58.encode(signer.seed));
      expect(text).not.toContain(JSON.stringify([...signer.seed]).slice(1, -1));
    } finally {
      await other.close();
    }
  });

  it('signs in with the wallet, by keyboard; the session is kept in this tab’s storage (the token only) and its end is shown', async () => {
    await page.goto(`${url}/console`);
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).waitFor();
    await axe('sign-in');
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
    await page
      .getByRole('link', { name: new RegExp(world.groupId.slice(0, 4)) })
      .first()
      .waitFor();
    await page.getByText(/^session until \d\d:\d\d/).waitFor();
    const kept = await stored(page);
    expect(Object.keys(kept.session)).toEqual(['tokenops.session']);
    const session = JSON.parse(kept.session['tokenops.session']!) as Record<string, string>;
    expect(Object.keys(session).sort()).toEqual(['expires_at', 'token', 'wallet', 'wallet_name']);
    expect(session.wallet).toBe(world.operator.wallet.address);
    expect(Date.parse(session.expires_at!)).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(kept.local).toBe(0);
    await axe('groups');
    await tabReachesEverything(page);
  });

  it('creates a group: each field’s error next to it, in words, before anything is sent', async () => {
    const create = page.getByRole('form', { name: 'Create a group' });
    await create.getByLabel('Per-transaction limit').fill('ten');
    await create.getByLabel('Daily limit').fill('1.1234567');
    await create.getByLabel('Transactions an hour').fill('30');
    const groups = (
      await world.client.call<{ groups: unknown[] }>('GET', '/api/v1/orchestrator/groups', {
        token: world.operator.token,
      })
    ).body.groups.length;
    await create.getByRole('button', { name: 'Create group' }).click();
    await create
      .getByText('Per-transaction limit must be an amount like 12.5 (digits, and a point for decimals).')
      .waitFor();
    await create.getByText('Daily limit takes at most 6 decimals.').waitFor();
    await expect(
      create
        .getByLabel('Per-transaction limit')
        .evaluate((i) => ((globalThis as unknown as InPage).document.activeElement as unknown) === i),
    ).resolves.toBe(true);
    expect(
      (
        await world.client.call<{ groups: unknown[] }>('GET', '/api/v1/orchestrator/groups', {
          token: world.operator.token,
        })
      ).body.groups,
    ).toHaveLength(groups);
    await create.getByLabel('Per-transaction limit').fill('100');
    await create.getByLabel('Daily limit').fill('1000');
    await create.getByRole('button', { name: 'Create group' }).click();
    await page.waitForURL(/#\/groups\/[1-9A-HJ-NP-Za-km-z]+$/);
    group = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
    await page
      .getByText('Defaults for new agents: 100 USDC a transaction, 1000 USDC a day, 30 transactions an hour.')
      .waitFor();
  });

  it('subscribes webhooks: an address the service refuses is said next to the URL field (its details, in words); the secret stays on screen until dismissed', async () => {
    await tab('Webhooks').click();
    await page.getByText('No subscription yet.').waitFor();
    const form = page.getByRole('form', { name: 'Subscribe a URL' });
    await form.getByLabel('HTTPS URL').fill('https://10.1.2.3/hook');
    await form.getByRole('button', { name: 'Subscribe' }).click();
    // The service's detail (`/url: must resolve to public addresses only (10.1.2.3: private IPv4 address)`).
    await form
      .getByText('HTTPS URL must reach a public address: it leads to 10.1.2.3, a private IPv4 address.')
      .waitFor();
    expect(await form.getByLabel('HTTPS URL').getAttribute('aria-invalid')).toBe('true');
    await form.getByLabel('HTTPS URL').fill(`${receiver.url}console`);
    await form.getByRole('button', { name: 'Subscribe' }).click();
    const secret = page.getByTestId('secret');
    await secret.getByTestId('shown-once').waitFor();
    await page.keyboard.press('Escape'); // not dismissed by accident
    await secret.getByTestId('shown-once').waitFor();
    await secret.getByRole('button', { name: 'I have stored it: close' }).click();
    // A second endpoint no one answers at: its deliveries fail.
    await form.getByLabel('HTTPS URL').fill(`https://${RECEIVER_HOST}:${downPort}/down`);
    await form.getByRole('button', { name: 'Subscribe' }).click();
    await secret.getByRole('button', { name: 'I have stored it: close' }).click();
    await page.getByRole('listitem', { name: `Subscription ${receiver.url}console` }).waitFor();
  });

  it('allow-lists recipients: a lifetime of 30 days reads as days, two hours counts down; a bad address is said next to its field', async () => {
    await tab('Allow-list').click();
    const allow = page.getByRole('form', { name: 'Allow a recipient' });
    await allow.getByLabel('Address').fill('tooShort');
    await allow.getByLabel('Budget').fill('0');
    await allow.getByRole('button', { name: 'Allow' }).click();
    await allow
      .getByText('Address is not a Solana address: an address is 32 to 44 letters and digits (base58).')
      .waitFor();
    await allow.getByText('Budget must be more than 0.').waitFor();
    await allow.getByLabel('Address').fill(supplier);
    await allow.getByLabel('Label').fill('supplier');
    await allow.getByLabel('Budget').fill('500');
    await allow.getByLabel('Lifetime', { exact: true }).fill('2');
    await allow.getByLabel('Lifetime in').selectOption('hours');
    await allow.getByRole('button', { name: 'Allow' }).click();
    const table = page.getByRole('region', { name: 'Allow-list entries' });
    const row = table.getByRole('row', { name: /supplier/ });
    await row.waitFor();
    const ttl = /(1h 59m|2h 00m) \d\ds left/;
    const before = ttl.exec(await row.innerText())?.[0];
    expect(await row.innerText()).toMatch(/0 \/ 500 USDC/);
    expect(before).toBeDefined();
    await row.getByText(ttl).filter({ hasNotText: before! }).waitFor({ timeout: 3000 }); // it counts down
    await row.getByText('2 h', { exact: true }).waitFor(); // its lifetime
    await allow.getByLabel('Address').fill(landlord);
    await allow.getByLabel('Label').fill('landlord');
    await allow.getByLabel('Budget').fill('900');
    await allow.getByRole('button', { name: 'Allow' }).click(); // 30 days, the default
    const long = table.getByRole('row', { name: /landlord/ });
    await long.getByText(/^29 days 23 h left$/).waitFor();
    await long.getByText('30 days', { exact: true }).waitFor();
    expect(await table.getByText('expires soon').count()).toBe(0);
    // The aggregator's removal asks first, saying what it stops.
    await table.getByRole('button', { name: 'Remove aggregator' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove aggregator from the allow-list?' });
    await confirm
      .getByText(
        /every swap of the group’s agents goes through the aggregator: from now on they are all refused/i,
      )
      .waitFor();
    await axe('confirm');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    await table.getByRole('row', { name: /aggregator/ }).waitFor(); // nothing removed
    await table.getByRole('button', { name: 'Remove landlord' }).click();
    const removal = page.getByRole('dialog', { name: 'Remove landlord from the allow-list?' });
    await removal
      .getByText(
        'Spends to landlord are refused from now on, and its budget ends (0 of 900 USDC used): allowing it again starts a new budget.',
      )
      .waitFor();
    await removal.getByRole('button', { name: 'Remove' }).click();
    await long.waitFor({ state: 'detached' });
    const listed = await world.client.call<{ whitelist: { address: string }[] }>(
      'GET',
      `/api/v1/orchestrator/groups/${group}`,
      {
        token: world.operator.token,
      },
    );
    expect(listed.body.whitelist.map((e) => e.address)).not.toContain(landlord);
    expect(listed.body.whitelist.map((e) => e.address)).toContain(supplier);
  });

  it('invites agents with their limits and approval threshold (each amount’s error next to it); the code stays on screen until dismissed', async () => {
    await tab('Agents').click();
    const invite = page.getByRole('form', { name: 'Invite an agent' });
    await invite.getByLabel('Label').fill('seller');
    await invite.getByLabel('Per transaction').fill('1O');
    await invite.getByLabel('Approval threshold').fill('5.0000001');
    await invite.getByRole('button', { name: 'Invite' }).click();
    await invite
      .getByText('Per transaction must be an amount like 12.5 (digits, and a point for decimals).')
      .waitFor();
    await invite.getByText('Approval threshold takes at most 6 decimals.').waitFor();
    await invite.getByLabel('Per transaction').fill('10');
    await invite.getByRole('textbox', { name: 'Daily', exact: true }).fill('50');
    await invite.getByLabel('Transactions an hour').fill('5');
    await invite.getByLabel('Approval threshold').fill('5');
    await invite.getByRole('button', { name: 'Invite' }).click();
    const secret = page.getByTestId('secret');
    sellerCode = await secret.getByTestId('shown-once').innerText();
    expect(sellerCode.length).toBeGreaterThan(10);
    await secret.getByRole('button', { name: 'I have stored it: close' }).click();
    const agents = page.getByRole('region', { name: 'Agents', exact: true });
    await agents
      .getByRole('row', { name: /seller/ })
      .getByText('10 USDC')
      .waitFor();
    const view = await world.client.call<{ agents: { label: string; status: string; limits: unknown }[] }>(
      'GET',
      `/api/v1/orchestrator/groups/${group}`,
      { token: world.operator.token },
    );
    expect(view.body.agents).toEqual([
      {
        agent_wallet_pda: expect.any(String),
        label: 'seller',
        status: 'invited',
        limits: { per_tx_limit: '10', daily_limit: '50', hourly_tx_cap: 5, approval_threshold: '5' },
        frozen: null,
      },
    ]);

    await invite.getByLabel('Label').fill('buyer');
    await invite.getByRole('button', { name: 'Invite' }).click();
    const code = await secret.getByTestId('shown-once').innerText();
    await secret.getByRole('button', { name: 'I have stored it: close' }).click();
    expect(new URL(page.url()).href).not.toContain(code);
    expect(JSON.stringify(await stored(page))).not.toContain(code);
    await agents.getByRole('row', { name: /buyer/ }).getByText('invited').waitFor();

    // The agents, over the agent API: buyer registers with the code from the page; courier, invited
    // over the operator API, too. Both get funds.
    const registered = await world.client.call<{ api_key: string; agent_wallet_pda: string }>(
      'POST',
      '/api/v1/register',
      {
        body: { invitation_code: code },
      },
    );
    expect(registered.status).toBe(200);
    buyer = { id: registered.body.agent_wallet_pda, key: registered.body.api_key };
    const invited = await invitation(world.client, world.operator, group, { label: 'courier' });
    const courierKey = await world.client.call<{ api_key: string; agent_wallet_pda: string }>(
      'POST',
      '/api/v1/register',
      {
        body: { invitation_code: invited.body.invitation_code },
      },
    );
    courier = { id: courierKey.body.agent_wallet_pda, key: courierKey.body.api_key };
    for (const [to, amount] of [
      [buyer.id, 300],
      [courier.id, 40],
    ] as const) {
      const funded = await world.client.call('POST', '/api/v1/dev/airdrop', {
        token: world.operator.token,
        body: { to, amount },
      });
      expect(funded.status).toBe(200);
    }
  });

  it('opens on the fleet at a glance: the agent’s transfer live (names and units), its gauges and the budget move, a refused spend counted and linked to the log', async () => {
    await tab('Overview').click();
    await page.getByText('Live: new events appear here').waitFor();
    const sent = await world.client.call('POST', '/api/v1/transfer', {
      token: buyer.key,
      body: { to: supplier, amount: 25, memo: 'invoice 17', idempotency_key: key() },
    });
    expect(sent.status).toBe(200);
    const live = page.getByTestId('live-events');
    await live
      .getByText(/^buyer: transfer of 25(\.\d+)? USDC to supplier accepted$/)
      .first()
      .waitFor({ timeout: 20_000 });
    await live
      .getByText(/^buyer: confirmed on chain/)
      .first()
      .waitFor({ timeout: 20_000 });
    const refusal = await world.client.call<{ error: string }>('POST', '/api/v1/transfer', {
      token: buyer.key,
      body: { to: stranger, amount: 5, idempotency_key: key() },
    });
    expect(refusal.body.error).toBe('whitelist_violation');
    const glance = page.getByRole('region', { name: 'At a glance' });
    await glance
      .getByRole('link', { name: /Spent in the last 24 hours\s+25(\.\d+)? USDC/ })
      .waitFor({ timeout: 10_000 });
    await glance.getByRole('link', { name: /Refused in the last hour\s+1\b/ }).waitFor({ timeout: 10_000 });
    await glance.getByRole('link', { name: /Waiting for you\s+0 held spends/ }).waitFor();
    await glance.getByRole('link', { name: /Failing webhooks\s+1\b/ }).waitFor({ timeout: 15_000 });
    await glance.getByRole('link', { name: /^active\s+2$/ }).waitFor();
    await glance.getByRole('link', { name: /^invited\s+1$/ }).waitFor();
    const closest = page.getByRole('region', { name: 'Closest to their daily limit' });
    await closest
      .getByTestId('buyer daily')
      .getByText(/^25(\.\d+)? \/ 1000 USDC$/)
      .waitFor();
    await page
      .getByTestId(`spend-total-${buyer.id}`)
      .getByText(/^25(\.\d+)? USDC$/)
      .waitFor();
    // A name shows its address when focused, with a copy button.
    const name = closest.getByRole('button', { name: 'buyer', exact: true });
    await name.focus();
    await closest.getByRole('tooltip').getByText(buyer.id).waitFor();
    await closest.getByRole('button', { name: 'Copy the address of buyer' }).click();
    expect(await page.evaluate(() => (globalThis as unknown as InPage).navigator.clipboard.readText())).toBe(
      buyer.id,
    );
    await axe('overview');
    await tabReachesEverything(page);

    // What the page drew, as the routes answer it.
    const usage = await world.client.call<{ agents: Record<string, unknown>[] }>(
      'GET',
      `/api/v1/orchestrator/groups/${group}/usage`,
      {
        token: world.operator.token,
      },
    );
    expect(usage.body.agents).toContainEqual(
      expect.objectContaining({
        agent_wallet_pda: buyer.id,
        spent_today: expect.stringMatching(/^25(\.\d+)?$/),
        hourly_count: 1,
        balances: expect.objectContaining({ USDC: expect.stringMatching(/^27[45](\.\d+)?$/) }),
      }),
    );
    for (const [window, buckets] of [
      ['24h', 24],
      ['7d', 28],
    ] as const) {
      type Series = { key: string; total: string; amounts: string[] }[];
      const spend = await world.client.call<{ buckets: string[]; agents: Series; recipients: Series }>(
        'GET',
        `/api/v1/orchestrator/groups/${group}/spend?window=${window}`,
        { token: world.operator.token },
      );
      expect(spend.body.buckets).toHaveLength(buckets);
      expect(spend.body.agents.map((a) => [a.key, a.total])).toEqual([
        [buyer.id, expect.stringMatching(/^25/)],
      ]);
      expect(spend.body.recipients.map((r) => r.key)).toEqual([supplier]);
      expect(spend.body.recipients[0]!.amounts.at(-1)).toMatch(/^25/);
      expect(spend.body.recipients[0]!.amounts.slice(0, -1).every((a) => a === '0')).toBe(true);
    }

    // The refused spend's tile opens the log at it.
    await glance.getByRole('link', { name: /Refused in the last hour/ }).click();
    await page.getByRole('heading', { name: /^Log/, level: 1 }).waitFor();
    const refusedRow = page.getByTestId('log-event');
    await refusedRow
      .first()
      .getByText(/^buyer: transfer of 5 USDC to .* refused \(whitelist_violation\)/)
      .waitFor();
    expect(await refusedRow.count()).toBe(1);
  });

  it('says it is disconnected when its event stream drops (as when the service stops), and is live again once it reconnects, missing nothing and showing nothing twice', async () => {
    // A tab of its own, on the world's group, reaching the service through a proxy the test can cut.
    const proxy = await TcpProxy.open(world.client.url);
    const tab = await context.newPage();
    try {
      await tab.goto(`${proxy.url(world.client.url)}/console`);
      await tab.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
      await tab
        .getByRole('link', { name: new RegExp(world.groupId.slice(0, 4)) })
        .first()
        .click();
      const state = tab.getByTestId('live-state');
      const shown = tab.getByTestId('live-events').getByRole('listitem');
      const logged = async () => {
        const page = await world.client.call<{ events: unknown[] }>(
          'GET',
          `/api/v1/orchestrator/groups/${world.groupId}/events`,
          { token: world.operator.token },
        );
        expect(page.body.events.length).toBeLessThan(50); // the page lists the newest 50
        return page.body.events.length;
      };
      const added = shown.filter({ hasText: /allowed, budget 5 USDC/ });
      await state.getByText('Live: new events appear here').waitFor();
      await until(async () => (await shown.count()) === (await logged()));
      const addedBefore = await added.count();

      await proxy.cut();
      await state.getByText('Disconnected: the service does not answer').waitFor();
      // While the page cannot reach the service, the operator allow-lists a recipient.
      await world.allow({
        address: generateSigner().address,
        type: 1,
        approved_amount: '5',
        ttl_seconds: 3600,
      });
      await proxy.restore();
      await state.getByText('Live: new events appear here').waitFor({ timeout: 10_000 });
      // It went on after the last event it had (Last-Event-ID): what came meanwhile, once, nothing again.
      await until(async () => (await added.count()) === addedBefore + 1);
      await until(async () => (await shown.count()) === (await logged()));
    } finally {
      await tab.close();
      await proxy.cut();
    }
  });

  it('previews an approval policy and applies it; a bad threshold and a quorum the service refuses are each said next to their field', async () => {
    await tab('Policy').click();
    const policy = page.getByRole('form', { name: 'Approval policy' });
    await policy.getByLabel('Threshold').fill('ten');
    await policy.getByRole('button', { name: 'Preview' }).click();
    await policy
      .getByText('Threshold must be an amount like 12.5 (digits, and a point for decimals).')
      .waitFor();
    // The transfer of 25 above, judged again under a threshold of 20: it would have been held.
    await policy.getByLabel('Threshold').fill('20');
    await policy.getByLabel('Quorum').fill('2');
    await policy.getByRole('button', { name: 'Preview' }).click();
    const preview = page.getByTestId('policy-preview');
    await preview.waitFor();
    expect(await preview.locator('p').innerText()).toMatch(
      /: 2 spends judged again; 1 would be held for approval; would be blocked: 1 \(whitelist_violation\)\.$/,
    );
    expect(await preview.getByRole('row', { name: /supplier/ }).innerText()).toMatch(
      /transfer of 25(\.\d+)? USDC\s+supplier\s+accepted\s+held$/,
    );
    await axe('policy');
    // A quorum of 2 with one approver: the service's detail names the field.
    await page.getByRole('button', { name: 'Apply this policy' }).click();
    await policy.getByText('Quorum must be an integer from 1 to the number of approvers (1).').waitFor();
    await policy.getByLabel('Quorum').fill('1');
    await policy.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('button', { name: 'Apply this policy' }).click();
    await page
      .getByTestId('policy-applied')
      .getByText(/spends above 20 USDC are held; 1 of 1 approver\(s\) decide within 24 hours/)
      .waitFor();
    // Away and back: the page reads the policy in force from the service, and the form starts from it.
    await tab('Overview').click();
    await tab('Policy').click();
    await page
      .getByTestId('policy-in-force')
      .getByText(/spends above 20 USDC are held; 1 of 1 approver\(s\) decide within 24 hours/)
      .waitFor();
    const again = page.getByRole('form', { name: 'Approval policy' });
    expect(await again.getByLabel('Threshold').inputValue()).toBe('20');
    expect(await again.getByLabel('Quorum').inputValue()).toBe('1');
    expect(await again.getByLabel('Wait (hours)').inputValue()).toBe('24');
  });

  /** The agent's transfer answered, and (for a held one) its card in the inbox once it came. */
  const transfer = (agent: { key: string }, amount: number, idempotency_key: string, memo?: string) =>
    world.client.call<{ error?: string; status?: string }>('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: supplier, amount, idempotency_key, ...(memo && { memo }) },
    });
  const held = async (agent: { key: string }, who: string, amount: number, k: string, memo?: string) => {
    const answer = await transfer(agent, amount, k, memo);
    expect([answer.status, answer.body.error]).toEqual([409, 'approval_required']);
    const card = page.getByRole('listitem', { name: `Held transfer of ${amount} USDC by ${who}` });
    await card.waitFor({ timeout: 10_000 });
    return card;
  };
  /**
   * The agent's retry with the same key, once it answers other than "still held": every 300 ms, as
   * an agent would (faster, its retries would meet the agent's rate limit).
   */
  const retried = (agent: { key: string }, amount: number, k: string, memo?: string) =>
    until(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const answer = await transfer(agent, amount, k, memo);
      return answer.status !== 409 && answer;
    }, 20_000);
  const decided = () => page.getByRole('region', { name: 'Decided', exact: true });

  it('holds transfers in the inbox (with their memo and why): one approved by a signature made in the page (the retry answers 200), one rejected with a reason, shown with who rejected and why', async () => {
    await tab('Inbox').click();
    await page.getByText('No spend waits for approval.').waitFor();
    const first = key();
    const card = await held(buyer, 'buyer', 30, first, 'rent, March');
    await card.getByTestId('memo').getByText('rent, March').waitFor();
    await card.getByText('its value is above the approval threshold').waitFor();
    expect(await card.getByTestId('recipient-history').innerText()).toMatch(
      /^25(\.\d+)? USDC confirmed to it in the last 7 days$/,
    );
    await card.getByText(/^23h 59m \d\ds left$/).waitFor();
    await axe('inbox');
    await tabReachesEverything(page);
    await card.getByRole('button', { name: 'Approve (sign)' }).click();
    await card.waitFor({ state: 'detached' });
    await decided()
      .getByRole('row', { name: /approved/ })
      .getByTestId('decided-by')
      .getByText('by you')
      .waitFor();
    const paid = await retried(buyer, 30, first, 'rent, March');
    expect([paid.status, paid.body.status]).toEqual([200, 'confirmed']);

    const second = key();
    const other = await held(buyer, 'buyer', 40, second);
    await other.getByLabel('Reason').fill('not this week');
    await other.getByRole('button', { name: 'Reject' }).click();
    await other.waitFor({ state: 'detached' });
    await decided()
      .getByRole('row', { name: /rejected.*transfer of 40 USDC/ })
      .getByText('by you (“not this week”)')
      .waitFor();
    const refusedAnswer = await retried(buyer, 40, second);
    expect([refusedAnswer.status, refusedAnswer.body.error]).toEqual([403, 'approval_rejected']);
  }, 60_000);

  it('rotates a key only once asked and confirmed (it says the running agent stops); the new key stays on screen, copyable, in no address or storage, until dismissed', async () => {
    // Two spends wait when buyer is revoked and courier withdrawn (below): their rejections say so.
    await held(buyer, 'buyer', 45, key());
    await held(courier, 'courier', 25, key());
    await tab('Overview').click();
    await page
      .getByRole('region', { name: 'At a glance' })
      .getByRole('link', { name: /Waiting for you\s+2 held spends/ })
      .waitFor();
    await tab('Agents').click();
    const agents = page.getByRole('region', { name: 'Agents', exact: true });
    // 25 and the approved 30 confirmed, 45 held: a held spend counts until it is decided.
    await agents
      .getByRole('row', { name: /buyer/ })
      .getByTestId('buyer daily')
      .getByText(/^100(\.\d+)? \/ 1000 USDC$/)
      .waitFor();
    await agents.getByRole('button', { name: /Manage buyer/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Agent buyer' });
    await dialog.getByRole('textbox', { name: 'Daily', exact: true }).fill('2000');
    await dialog.getByRole('button', { name: 'Save limits' }).click();
    await dialog.getByText('Limits saved.').waitFor();
    await agents
      .getByTestId('buyer daily')
      .getByText(/^100(\.\d+)? \/ 2000 USDC$/)
      .waitFor();
    await axe('agent');

    await dialog.getByRole('button', { name: 'Rotate key' }).click();
    const confirm = page.getByRole('dialog', { name: 'Rotate the key of buyer?' });
    await confirm
      .getByText(/The running agent stops now: its current key is refused from this moment/)
      .waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    const balance = (token: string) => world.client.call('GET', '/api/v1/balance', { token });
    expect((await balance(buyer.key)).status).toBe(200); // cancelled: nothing rotated
    await dialog.getByRole('button', { name: 'Rotate key' }).click();
    const reread = page.waitForResponse(
      (r) => r.url().endsWith(`/orchestrator/groups/${group}`) && r.request().method() === 'GET',
    );
    await confirm.getByRole('button', { name: 'Rotate key' }).click();
    const secret = page.getByTestId('secret');
    const fresh = await secret.getByTestId('shown-once').innerText();
    expect(fresh).not.toBe(buyer.key);
    expect((await balance(buyer.key)).status).toBe(401);
    expect((await balance(fresh)).status).toBe(200);
    await axe('secret');
    expect(page.url()).not.toContain(fresh);
    expect(JSON.stringify(await stored(page))).not.toContain(fresh);
    await secret.getByRole('button', { name: /^Copy/ }).click();
    expect(await page.evaluate(() => (globalThis as unknown as InPage).navigator.clipboard.readText())).toBe(
      fresh,
    );
    // The group is read again (its events came) and the key is still there.
    await reread;
    await expect(secret.getByTestId('shown-once').innerText()).resolves.toBe(fresh);
    await secret.getByRole('button', { name: 'I have stored it: close' }).click();
    await secret.waitFor({ state: 'detached' });
    buyer = { ...buyer, key: fresh };
  });

  /** What the page says of a withdrawal, as a person reads it (the addresses' tips hidden). */
  const withdrawnSays = async (start: RegExp) => {
    const notice = page.getByRole('status').filter({ hasText: start });
    await notice.waitFor();
    return (await notice.innerText()).trim();
  };

  it('revokes an agent once confirmed; a revoked agent leaves the table unless asked for, and its funds are still withdrawn (refused until WITHDRAW is typed); its held spend says the revocation rejected it', async () => {
    const agents = page.getByRole('region', { name: 'Agents', exact: true });
    const dialog = page.getByRole('dialog', { name: 'Agent buyer' });
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke buyer?' });
    await confirm
      .getByText(/Its key is refused from now on, for good, and its held spends are rejected/)
      .waitFor();
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await dialog.getByText('revoked').waitFor();
    expect((await world.client.call('GET', '/api/v1/balance', { token: buyer.key })).status).toBe(401);
    await dialog.getByRole('button', { name: 'Withdraw its funds' }).click();
    const withdraw = page.getByRole('dialog', { name: 'Withdraw everything buyer holds?' });
    await withdraw.getByLabel(/Type WITHDRAW to confirm/).fill('withdraw');
    await withdraw.getByRole('button', { name: 'Withdraw everything' }).click();
    await withdraw.getByText('Type WITHDRAW (in capitals) to confirm; nothing was done.').waitFor();
    const usage = async (agent: string) =>
      (
        await world.client.call<{ agents: { agent_wallet_pda: string; balances: Record<string, string> }[] }>(
          'GET',
          `/api/v1/orchestrator/groups/${group}/usage`,
          { token: world.operator.token },
        )
      ).body.agents.find((a) => a.agent_wallet_pda === agent)!.balances.USDC;
    const holding = await usage(buyer.id);
    expect(Number(holding)).toBeGreaterThan(200);
    await withdraw.getByLabel(/Type WITHDRAW to confirm/).fill('WITHDRAW');
    await withdraw.getByRole('button', { name: 'Withdraw everything' }).click();
    await withdraw.waitFor({ state: 'detached' });
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(withdrawnSays(/^Withdrawn from buyer/)).resolves.toBe(
      `Withdrawn from buyer to you: ${holding} USDC.`,
    );
    // Revoked: out of the table unless asked for.
    await agents.getByRole('row', { name: /seller/ }).waitFor();
    expect(await agents.getByRole('row', { name: /buyer/ }).count()).toBe(0);
    await page
      .getByRole('search', { name: 'Agents: search and filters' })
      .getByLabel('Status')
      .selectOption('revoked');
    await agents.getByRole('row', { name: /buyer/ }).getByText('revoked').waitFor();

    // Courier, active, in an emergency: its held spend is rejected by the withdrawal.
    await page
      .getByRole('search', { name: 'Agents: search and filters' })
      .getByLabel('Status')
      .selectOption('active');
    await agents.getByRole('button', { name: /Manage courier/ }).click();
    const courierDialog = page.getByRole('dialog', { name: 'Agent courier' });
    await courierDialog.getByRole('button', { name: 'Emergency withdrawal' }).click();
    const stop = page.getByRole('dialog', { name: 'Withdraw everything courier holds?' });
    await stop.getByText(/It is revoked for good .* Holding now: 40 USDC/).waitFor();
    await stop.getByLabel(/Type WITHDRAW to confirm/).fill('WITHDRAW');
    await stop.getByRole('button', { name: 'Withdraw everything' }).click();
    await stop.waitFor({ state: 'detached' });
    await courierDialog.getByRole('button', { name: 'Close' }).click();
    await expect(withdrawnSays(/^Withdrawn from courier/)).resolves.toBe(
      'Withdrawn from courier to you: 40 USDC.',
    );
    expect((await world.client.call('GET', '/api/v1/balance', { token: courier.key })).status).toBe(401);

    await tab('Inbox').click();
    await decided()
      .getByRole('row', { name: /rejected.*transfer of 45 USDC/ })
      .getByText('when its agent was revoked')
      .waitFor();
    await decided()
      .getByRole('row', { name: /rejected.*transfer of 25 USDC/ })
      .getByText('by the emergency withdrawal of its agent')
      .waitFor();
    expect(await page.getByText('No spend waits for approval.').count()).toBe(1);
  });

  it('lists the group with what waits in it; shows each endpoint’s health (a failing one says why, and when it tries again) and each attempt; sends again, rotates the secret and deletes only once confirmed', async () => {
    await page.getByRole('link', { name: 'All groups' }).click();
    const row = page
      .getByRole('region', { name: 'Your groups' })
      .getByRole('row', { name: new RegExp(group.slice(0, 4)) });
    await row.getByRole('link', { name: '1 failing webhook' }).waitFor({ timeout: 10_000 });
    await row.getByRole('link', { name: /refused in the last hour/ }).waitFor();
    await page.goto(groupPage('webhooks'));
    const good = page.getByRole('listitem', { name: `Subscription ${receiver.url}console` });
    const down = page.getByRole('listitem', { name: /Subscription https:\/\/127\.0\.0\.2:\d+\/down/ });
    await good
      .getByTestId('health')
      .getByText(/^healthy the last \d+ delivered$/)
      .waitFor();
    await down
      .getByTestId('health')
      .getByText(/^failing every delivery fails \(the last \d+\): connection refused; next attempt (in|now)/)
      .waitFor();
    const attempts = down.getByRole('row', { name: /transfer\.confirmed/ }).first();
    await attempts.getByRole('cell', { name: 'connection refused', exact: true }).waitFor();
    await attempts.getByText(/\d+ attempts?/).click();
    await attempts
      .getByRole('listitem')
      .first()
      .getByText(/: failed \(connection refused\), \d+ ms$/)
      .waitFor();

    // Each confirmed transfer (the 25, the approved 30) delivered once to the good one; one sent again.
    const confirmed = good.getByRole('row', { name: /transfer\.confirmed/ });
    await confirmed.nth(1).getByRole('cell', { name: 'delivered', exact: true }).waitFor();
    await confirmed.first().getByRole('cell', { name: 'delivered', exact: true }).waitFor();
    expect(await confirmed.count()).toBe(2);
    const sent = () =>
      receiver.requests.filter(
        (r) =>
          r.url === '/console' && (JSON.parse(r.body) as { event: string }).event === 'transfer.confirmed',
      ).length;
    expect(sent()).toBe(2);
    await confirmed
      .first()
      .getByRole('button', { name: /Send transfer\.confirmed .* again/ })
      .click();
    await until(() => sent() === 3, 10_000);
    await axe('webhooks');
    await good.getByRole('button', { name: 'Rotate secret' }).click();
    const confirm = page.getByRole('dialog', {
      name: `Rotate the signing secret of ${receiver.url}console?`,
    });
    await confirm
      .getByText(/The old one also verifies for 1 day: give the receiver the new secret before then/)
      .waitFor();
    await confirm.getByRole('button', { name: 'Rotate secret' }).click();
    const secret = page.getByTestId('secret');
    await secret.getByTestId('shown-once').waitFor();
    await secret.getByRole('button', { name: 'I have stored it: close' }).click();
    await good.getByText(/the previous secret also verifies until/).waitFor();
    await down.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: /Delete the subscription of/ })
      .getByRole('button', { name: 'Delete' })
      .click();
    await down.waitFor({ state: 'detached' });
    await good.waitFor();
  });

  it('shows the group’s log filtered by agent, kind, counterparty and time, opens a spend’s story, and exports the filtered log as CSV and NDJSON', async () => {
    await tab('Log').click();
    const filters = page.getByRole('form', { name: 'Filter the log' });
    await filters.getByLabel('Agent').selectOption({ label: 'buyer' });
    await filters.getByLabel('Kind').selectOption({ label: 'Spends (every outcome)' });
    await filters.getByLabel('Counterparty').fill('supplier');
    await filters
      .getByLabel('From')
      .fill(
        new Date(Date.now() - 3_600_000 - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16),
      );
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/\/log\?agent=/);
    const rows = page.getByTestId('log-event');
    // buyer's spends to supplier: 25 (accepted, confirmed), 30 (accepted, confirmed), 40 and 45 (accepted, held, then failed).
    await rows.filter({ hasText: 'invoice 17' }).first().waitFor();
    await rows
      .filter({ hasText: /buyer: confirmed on chain/ })
      .nth(1)
      .waitFor();
    const texts = await rows.allInnerTexts();
    expect(texts.map((t) => /accepted|confirmed on chain|failed/.exec(t)?.[0])).toEqual([
      'accepted',
      'confirmed on chain',
      'accepted',
      'confirmed on chain',
      'accepted',
      'failed',
      'accepted',
      'failed',
    ]);
    expect(texts.filter((t) => /accepted/.test(t)).every((t) => /to supplier/.test(t))).toBe(true);
    expect(texts.some((t) => /refused/.test(t))).toBe(false); // the refused one was to another address
    await rows
      .filter({ hasText: /transfer of 25(\.\d+)? USDC to supplier accepted/ })
      .getByRole('button', { name: /^Story/ })
      .click();
    const story = page.getByTestId('story');
    await story.getByText('accepted', { exact: true }).waitFor();
    await story.getByText('confirmed', { exact: true }).waitFor();
    await story
      .getByRole('table', { name: 'Its webhook deliveries' })
      .getByText('transfer.confirmed')
      .first()
      .waitFor();
    await axe('story');
    await story.getByRole('button', { name: 'Close' }).click();
    await axe('log');

    const exported = async (button: string) => {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: button }).click(),
      ]);
      return readFileSync((await download.path())!, 'utf8');
    };
    // What the service answers for the same filters (all but the counterparty, which the page applies).
    const q = new URL(page.url()).hash.split('?')[1]!;
    const params = new URLSearchParams(q);
    params.delete('counterparty');
    const whole = await fetch(api(`/audit/groups/${group}/events?${params}`), {
      headers: { ...bearer(world.operator.token), accept: 'application/x-ndjson' },
    });
    const intents = new Set<string>();
    const expected = (await whole.text())
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event_id: string; data: Record<string, unknown> })
      .filter((e) => {
        // The spends to supplier: the events naming it, and the later events of the same intents.
        if (e.data.counterparty === supplier) intents.add(String(e.data.intent_id));
        return intents.has(String(e.data.intent_id));
      });
    expect(expected.map((e) => e.event_id)).toEqual(
      await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-event'))),
    );
    const ndjson = (await exported('Export NDJSON'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event_id: string });
    expect(ndjson.map((e) => e.event_id)).toEqual(expected.map((e) => e.event_id));
    const csvText = await exported('Export CSV');
    const lines = csvText.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'recorded_at,type,description,agent,agent_label,counterparty,counterparty_label,amount,memo,intent_id,event_id,stream,revision,position,hash,data',
    );
    expect(lines).toHaveLength(expected.length + 1);
    expect(lines.some((l) => l.includes(',invoice 17,'))).toBe(true);
    await page.getByText(`Exported ${expected.length} events as CSV.`).waitFor();

    // The whole log, a page of 50 at a time by cursor: the next page follows on, nothing twice.
    await page.getByRole('form', { name: 'Filter the log' }).getByRole('link', { name: 'Clear' }).click();
    const all = (
      await (
        await fetch(api(`/audit/groups/${group}/events`), {
          headers: { ...bearer(world.operator.token), accept: 'application/x-ndjson' },
        })
      ).text()
    )
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { event_id: string }).event_id);
    expect(all.length).toBeGreaterThan(50);
    await rows.nth(49).waitFor();
    expect(await rows.count()).toBe(50);
    await page.getByRole('button', { name: 'Load more' }).click();
    await rows.nth(50).waitFor();
    const paged = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-event')));
    expect(paged).toEqual(all.slice(0, Math.min(all.length, 100)));
  });

  /** The short form the page shows an address by, when it has no name. */
  const shortOf = (address: string) => `${address.slice(0, 4)}…${address.slice(-4)}`;
  /** An agent of the group that spends, for the kill switch: registered, funded, paying the supplier. */
  let runner: { id: string; key: string };
  /** The group as the service answers it: its freeze, and each agent's. */
  const frozenOf = async () =>
    (
      await world.client.call<{
        frozen: unknown;
        agents: { agent_wallet_pda: string; frozen: unknown }[];
      }>('GET', `/api/v1/orchestrator/groups/${group}`, { token: world.operator.token })
    ).body;

  it('freezes an agent from its row at once (a reason asked, confirmed once): it shows frozen, by whom, why and when, and its spends are refused 403 agent_frozen; lifting the freeze is signed in the page, and it spends again', async () => {
    const invited = await invitation(world.client, world.operator, group, { label: 'runner' });
    const registered = await world.client.call<{ api_key: string; agent_wallet_pda: string }>(
      'POST',
      '/api/v1/register',
      { body: { invitation_code: invited.body.invitation_code } },
    );
    runner = { id: registered.body.agent_wallet_pda, key: registered.body.api_key };
    const funded = await world.client.call('POST', '/api/v1/dev/airdrop', {
      token: world.operator.token,
      body: { to: runner.id, amount: 10 },
    });
    expect(funded.status).toBe(200);
    expect((await transfer(runner, 1, key())).status).toBe(200);

    await tab('Agents').click();
    const row = page
      .getByRole('region', { name: 'Agents', exact: true })
      .getByRole('row', { name: /runner/ });
    await row.getByRole('button', { name: 'Freeze runner' }).click();
    const confirm = page.getByRole('dialog', { name: 'Freeze runner?' });
    await confirm.getByText(/^Every spend of runner is refused from now on/).waitFor();
    await confirm.getByLabel(/^Reason/).fill('prompt injection suspected');
    await axe('freeze');
    await confirm.getByRole('button', { name: 'Freeze', exact: true }).click();
    await confirm.waitFor({ state: 'detached' });
    await page
      .getByRole('status')
      .getByText(
        'runner is frozen: every spend of it is refused from now on. No accepted spend was waiting to be sent.',
      )
      .waitFor();
    await row.getByText('frozen', { exact: true }).waitFor();
    await row.getByText(/^frozen since .+, by you: “prompt injection suspected”$/).waitFor();
    const refusedSpend = await transfer(runner, 1, key());
    expect([refusedSpend.status, refusedSpend.body.error]).toEqual([403, 'agent_frozen']);
    expect((await frozenOf()).agents.find((a) => a.agent_wallet_pda === runner.id)!.frozen).toEqual({
      by: world.operator.wallet.address,
      reason: 'prompt injection suspected',
      at: expect.any(String),
    });
    await axe('frozen');

    // Lifting it is a proposal: signed here with the wallet, made at once under a quorum of one.
    await row.getByRole('button', { name: /Manage runner/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Agent runner' });
    await dialog.getByText(/^frozen since .+, by you: “prompt injection suspected”$/).waitFor();
    await dialog.getByRole('button', { name: 'Lift the freeze (sign) of runner' }).click();
    await dialog.getByRole('button', { name: 'Freeze', exact: true }).waitFor(); // not frozen any more
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(await row.getByText('frozen', { exact: true }).count()).toBe(0);
    expect((await frozenOf()).agents.find((a) => a.agent_wallet_pda === runner.id)!.frozen).toBeNull();
    expect((await transfer(runner, 1, key())).status).toBe(200);
  });

  it('freezes the whole group from its frame at once: a banner on each of its pages says who, why and when, and every spend is refused 403 group_frozen; lifting it is signed in the page', async () => {
    await page.getByRole('button', { name: 'Freeze the group' }).click(); // above the tabs of every page
    const confirm = page.getByRole('dialog', { name: 'Freeze the whole group?' });
    await confirm.getByText(/^Every spend of every agent of the group is refused from now on/).waitFor();
    await confirm.getByLabel(/^Reason/).fill('drill');
    await confirm.getByRole('button', { name: 'Freeze the group' }).click();
    const banner = page.getByRole('region', { name: 'The group is frozen' });
    await banner
      .getByText(
        /^The group is frozen: every spend of its agents is refused, since .+, by you: “drill”\. No accepted spend was waiting to be sent\.$/,
      )
      .waitFor();
    expect(await page.getByRole('button', { name: 'Freeze the group' }).count()).toBe(0);
    const refusedSpend = await transfer(runner, 1, key());
    expect([refusedSpend.status, refusedSpend.body.error]).toEqual([403, 'group_frozen']);
    expect((await frozenOf()).frozen).toEqual({
      by: world.operator.wallet.address,
      reason: 'drill',
      at: expect.any(String),
    });
    await tab('Members').click();
    await banner.getByText(/by you: “drill”/).waitFor(); // on every page of the group
    await banner.getByRole('button', { name: 'Lift the freeze (sign)' }).click();
    await banner.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Freeze the group' }).waitFor();
    expect((await frozenOf()).frozen).toBeNull();
    expect((await transfer(runner, 1, key())).status).toBe(200);
  });

  /** A second admin of the group (signed in over the API), and a viewer. */
  let second: Operator;
  const viewer = generateSigner();
  const groupApi = () => `/api/v1/orchestrator/groups/${group}`;
  const closedProposals = () => page.getByRole('region', { name: 'Closed proposals', exact: true });

  it('with a quorum of two admins: the other admin’s proposals are in the inbox at 1 of 2, in words; one signed in the page is made (its invitation code shown once), one cancelled in the page once asked; a viewer reads them, with no button', async () => {
    second = await signIn(world.client);
    for (const member of [
      { wallet: second.wallet.address, role: 'admin' },
      { wallet: viewer.address, role: 'viewer' },
    ]) {
      const added = await enact(world.client, [world.operator], 'POST', `${groupApi()}/members`, member);
      expect(added.body.status).toBe('executed');
    }
    const quorum = await enact(world.client, [world.operator], 'PUT', `${groupApi()}/governance`, {
      quorum: 2,
    });
    expect(quorum.body).toMatchObject({ status: 'executed', result: { quorum: 2, admins: 2 } });
    // The second admin proposes an invitation and an allow-list entry, and signs each: 1 of 2.
    const proposed = async (path: string, body: unknown) => {
      const asked = await world.client.call<ProposalReply>('POST', `${groupApi()}${path}`, {
        token: second.token,
        body,
      });
      expect(asked.status).toBe(202);
      const signed = await signProposal(world.client, second, asked.body);
      expect(signed.body).toMatchObject({
        status: 'pending',
        signatures: [{ wallet: second.wallet.address }],
      });
    };
    await proposed('/invitations', { label: 'helper' });
    const dealer = generateSigner().address;
    await proposed('/whitelist', {
      address: dealer,
      type: 1,
      approved_amount: '1000',
      ttl_seconds: 30 * 86_400,
    });

    await tab('Overview').click();
    await page
      .getByRole('region', { name: 'At a glance' })
      .getByRole('link', { name: /Proposals to sign\s+2 proposals/ })
      .click();
    const invite = page.getByRole('listitem', { name: 'Proposal: Invite an agent “helper”' });
    const entry = page.getByRole('listitem', {
      name: `Proposal: Allow-list ${shortOf(dealer)}: 1,000 USDC for 30 days`,
    });
    const signatures = invite.getByTestId('signatures');
    await signatures.waitFor();
    expect((await signatures.innerText()).replace(/\s+/g, ' ')).toBe(
      `1 of 2: ${shortOf(second.wallet.address)}`,
    );
    await entry.getByText(/^[0-9]+ days? \d+ h left$/).waitFor(); // its expiry
    await axe('proposals');

    // A viewer, signed in with its own keypair: the same list, nothing to press.
    const other = await browser.newContext();
    try {
      const tabOf = await other.newPage();
      await tabOf.goto(groupPage('inbox'));
      await tabOf.getByLabel('Keypair file (JSON)').setInputFiles({
        name: 'viewer.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify([...viewer.seed, ...viewer.publicKey])),
      });
      const listed = tabOf.getByRole('listitem', { name: 'Proposal: Invite an agent “helper”' });
      await listed
        .getByTestId('signatures')
        .getByText(/^1 of 2/)
        .waitFor();
      await tabOf.getByRole('region', { name: 'Closed proposals', exact: true }).waitFor();
      expect(
        await tabOf
          .locator('main')
          .getByRole('button', { name: /^(Sign|Cancel proposal|Freeze the group)$/ })
          .count(),
      ).toBe(0);
    } finally {
      await other.close();
    }

    // Signed here: the second signature of two makes it, and its code is shown once.
    await invite.getByRole('button', { name: 'Sign' }).click();
    const secret = page.getByTestId('secret');
    const code = await secret.getByTestId('shown-once').innerText();
    const helper = await world.client.call('POST', '/api/v1/register', { body: { invitation_code: code } });
    expect(helper.status).toBe(200);
    await secret.getByRole('button', { name: 'I have stored it: close' }).click();
    await page
      .getByTestId('proposal-outcome')
      .getByText('Signed and made: Invite an agent “helper”.')
      .waitFor();
    await invite.waitFor({ state: 'detached' });
    await closedProposals()
      .getByRole('row', { name: /executed\s+Invite an agent “helper”/ })
      .getByTestId('ended')
      .getByText(`made, signed by ${shortOf(second.wallet.address)}, you`)
      .waitFor();

    // Cancelled here, once asked (the reason kept).
    await entry.getByRole('button', { name: 'Cancel proposal' }).click();
    const cancel = page.getByRole('dialog', { name: 'Cancel this proposal?' });
    await cancel.getByLabel(/^Reason/).fill('not this dealer');
    await cancel.getByRole('button', { name: 'Cancel the proposal' }).click();
    await entry.waitFor({ state: 'detached' });
    await closedProposals()
      .getByRole('row', { name: /cancelled\s+Allow-list/ })
      .getByText('cancelled: “not this dealer”')
      .waitFor();
    await page.getByText('No proposal waits for signatures.').waitFor();
    const view = await world.client.call<{ whitelist: { address: string }[] }>('GET', groupApi(), {
      token: world.operator.token,
    });
    expect(view.body.whitelist.map((e) => e.address)).not.toContain(dealer);
  }, 60_000);

  /** A fresh agent of the group (its invitation signed by both admins), registered and funded. */
  const freshAgent = async (label: string, amount: number) => {
    const invited = await enact(world.client, [world.operator, second], 'POST', `${groupApi()}/invitations`, {
      label,
    });
    expect(invited.body.status).toBe('executed');
    const code = (invited.body.result as { invitation_code: string }).invitation_code;
    const registered = await world.client.call<{ api_key: string; agent_wallet_pda: string }>(
      'POST',
      '/api/v1/register',
      { body: { invitation_code: code } },
    );
    expect(registered.status).toBe(200);
    const funded = await world.client.call('POST', '/api/v1/dev/airdrop', {
      token: world.operator.token,
      body: { to: registered.body.agent_wallet_pda, amount },
    });
    expect(funded.status).toBe(200);
    return { id: registered.body.agent_wallet_pda, key: registered.body.api_key };
  };
  /** The group's pending proposal of `action`, as the second admin reads it. */
  const pendingOf = async (action: string) => {
    const listed = await world.client.call<{ proposals: ProposalReply[] }>(
      'GET',
      `${groupApi()}/proposals?status=pending`,
      { token: second.token },
    );
    return listed.body.proposals.find((p) => p.action === action)!;
  };

  it('sets the group’s limits from the ones in force and shows each with its gauge; a rise waits for the other admin (the page says so and links the inbox); a guard rule added reads back after a reload (a field the service refuses said next to it); an agent the rule trips shows frozen by the guard, and in what tripped recently', async () => {
    await tab('Guard').click();
    const limits = page.getByRole('region', { name: 'Group limits' });
    const inForce = limits.getByTestId('group-limits-in-force');
    await inForce.getByText('none over the group (each agent’s own daily limit only).').waitFor();
    const form = page.getByRole('form', { name: 'Set the group’s limits' });
    expect(await form.getByLabel('Group daily limit').inputValue()).toBe('');
    await form.getByLabel('Group daily limit').fill('five hundred');
    await form.getByRole('button', { name: 'Save limits' }).click();
    await form
      .getByText('Group daily limit must be an amount like 12.5 (digits, and a point for decimals).')
      .waitFor();
    // From none to some: a narrowing, in force at once by one admin of two.
    await form.getByLabel('Group daily limit').fill('500');
    await form.getByLabel('Group operations an hour').fill('50');
    await form.getByRole('button', { name: 'Save limits' }).click();
    await limits
      .getByTestId('group-limits-saved')
      .getByText(/^Set at once/)
      .waitFor();
    await inForce.getByTestId('group daily').getByText('0 / 500 USDC', { exact: true }).waitFor();
    await inForce.getByTestId('group hourly').getByText('0 / 50 operations', { exact: true }).waitFor();
    await expect(form.getByLabel('Group daily limit').inputValue()).resolves.toBe('500');
    // A rise: a proposal, signed in the page, that waits for the other admin.
    await form.getByLabel('Group daily limit').fill('800');
    await form.getByRole('button', { name: 'Save limits' }).click();
    await form
      .getByTestId('proposed')
      .getByText(
        /^Proposed and signed by you \(1 of 2 signatures\): nothing changes until the other admins sign proposal \S+ \(in the Inbox\)\.$/,
      )
      .waitFor();
    expect(
      await limits.getByRole('link', { name: 'The proposals to sign, in the Inbox' }).getAttribute('href'),
    ).toBe(`#/groups/${encodeURIComponent(group)}/inbox`);
    await inForce.getByTestId('group daily').getByText('0 / 500 USDC', { exact: true }).waitFor();
    const rise = await pendingOf('group.limits');
    expect(rise.params).toEqual({ daily_limit: '800' });
    expect((await signProposal(world.client, second, rise)).body.status).toBe('executed');
    // The page follows the group's events: the limit in force is read again, and the proposal waits no more.
    await inForce.getByTestId('group daily').getByText('0 / 800 USDC', { exact: true }).waitFor();
    await form.getByTestId('proposed').waitFor({ state: 'detached' });

    // The rules: none in force; a time zone the service does not know is said next to its field.
    const rules = page.getByRole('region', { name: 'Guard rules' });
    await rules
      .getByTestId('guard-rules-in-force')
      .getByText('no rule: the guard holds nothing and freezes no agent.', { exact: false })
      .waitFor();
    const ruleForm = page.getByRole('form', { name: 'The guard’s rules' });
    const quiet = ruleForm.getByRole('group', { name: 'Quiet hours' });
    expect(await quiet.getByLabel('Time zone').isDisabled()).toBe(true); // off until ticked
    await quiet.getByRole('checkbox', { name: 'Quiet hours' }).check();
    await quiet.getByLabel('Time zone').fill('Mars/Olympus');
    await ruleForm.getByRole('button', { name: 'Save the rules' }).click();
    await quiet
      .getByText('Time zone must be an IANA time zone, like "Europe/Paris" or "UTC".', { exact: true })
      .waitFor();
    expect(await quiet.getByLabel('Time zone').getAttribute('aria-invalid')).toBe('true');
    await quiet.getByRole('checkbox', { name: 'Quiet hours' }).uncheck();
    const velocity = ruleForm.getByRole('group', { name: 'Velocity' });
    await velocity.getByRole('checkbox', { name: 'Velocity' }).check();
    await velocity.getByLabel('Factor').fill('1');
    await velocity.getByLabel('At least (spends in the hour)').fill('2');
    await velocity.getByLabel('Then').selectOption('freeze_agent');
    await ruleForm.getByRole('button', { name: 'Save the rules' }).click();
    await rules
      .getByTestId('guard-rules-saved')
      .getByText('Saved at once (it adds or tightens rules): 1 rule in force.')
      .waitFor();
    const velocityWords =
      'Velocity: when its spends in the last hour number more than 1 × its usual hourly count (over 7 days), and at least 2, refuse the spend and freeze the agent.';
    await rules.getByTestId('guard-rule').getByText(velocityWords).waitFor();
    expect(
      (
        await world.client.call<{ rules: unknown[] }>('GET', `${groupApi()}/guard`, {
          token: world.operator.token,
        })
      ).body.rules,
    ).toEqual([{ kind: 'velocity', factor: 1, min_count: 2, action: 'freeze_agent' }]);
    await axe('guard');
    // Read back from the service after a reload: the list in force, and the form starts from it.
    await page.reload();
    await page.getByRole('heading', { name: /^Guard/, level: 1 }).waitFor();
    await rules.getByTestId('guard-rule').getByText(velocityWords).waitFor();
    await expect(velocity.getByRole('checkbox', { name: 'Velocity' }).isChecked()).resolves.toBe(true);
    await expect(velocity.getByLabel('Factor').inputValue()).resolves.toBe('1');
    await expect(velocity.getByLabel('Then').inputValue()).resolves.toBe('freeze_agent');
    await expect(quiet.getByRole('checkbox', { name: 'Quiet hours' }).isChecked()).resolves.toBe(false);

    // A fresh agent spends twice in a minute: its second spend trips the rule, and it is frozen.
    const sprinter = await freshAgent('sprinter', 10);
    expect((await transfer(sprinter, 1, key())).status).toBe(200);
    const second_ = await transfer(sprinter, 1, key());
    expect([second_.status, second_.body.error]).toEqual([403, 'agent_frozen']);
    const frozen = (await frozenOf()).agents.find((a) => a.agent_wallet_pda === sprinter.id)!.frozen as {
      by: string;
      reason: string;
    };
    expect(frozen.by).toBe('guard');
    expect(frozen.reason).toMatch(/^velocity: /);
    // The group's gauges count its confirmed spend (the refused one is not).
    await inForce
      .getByTestId('group daily')
      .getByText(/^1(\.0+)? \/ 800 USDC$/)
      .waitFor({ timeout: 15_000 });
    await inForce.getByTestId('group hourly').getByText('1 / 50 operations', { exact: true }).waitFor();
    // What tripped recently, live: the agent by its name, the rule, its words, what it did, its spend's story.
    const trip = page.getByRole('region', { name: 'Tripped recently' }).getByTestId('guard-trip');
    await trip.first().getByText('froze the agent').waitFor({ timeout: 15_000 });
    expect(await trip.count()).toBe(1);
    const tripText = await trip.innerText();
    expect(tripText).toContain('sprinter');
    expect(tripText).toContain('velocity');
    expect(tripText).toContain(frozen.reason.replace(/^velocity: /, ''));
    await trip.getByRole('button', { name: /^Story/ }).click();
    const story = page.getByTestId('story');
    await story
      .getByRole('table', { name: 'Its events' })
      .getByRole('row', { name: /guard\.tripped/ })
      .waitFor();
    await story.getByText('blocked', { exact: true }).waitFor();
    await story.getByRole('button', { name: 'Close' }).click();

    // On the agents page: frozen by the guard, with its words, apart from an admin's freeze.
    await tab('Agents').click();
    const row = page
      .getByRole('region', { name: 'Agents', exact: true })
      .getByRole('row', { name: /sprinter/ });
    await row.getByText('frozen by the guard', { exact: true }).waitFor();
    await row.getByText(/^frozen since .+, by the guard: “velocity: .+”$/).waitFor();
    await page
      .getByRole('search', { name: 'Agents: search and filters' })
      .getByLabel('Status')
      .selectOption('guard');
    await row.waitFor();
    expect(await page.getByRole('region', { name: 'Agents', exact: true }).locator('tbody tr').count()).toBe(
      1,
    );
    await axe('frozen-by-guard');

    // The overview counts the rule that tripped, and opens the guard at it.
    await tab('Overview').click();
    await page
      .getByRole('region', { name: 'At a glance' })
      .getByRole('link', { name: /Guard tripped, last 24 hours\s+1\s/ })
      .click();
    await page.getByRole('heading', { name: /^Guard/, level: 1 }).waitFor();

    // A rule that holds: the held spend in the inbox names the rule and its words.
    const counterparty = ruleForm.getByRole('group', { name: 'New counterparty' });
    await counterparty.getByRole('checkbox', { name: 'New counterparty' }).check();
    await ruleForm.getByRole('button', { name: 'Save the rules' }).click();
    await rules
      .getByTestId('guard-rules-saved')
      .getByText('Saved at once (it adds or tightens rules): 2 rules in force.')
      .waitFor();
    const walker = await freshAgent('walker', 10);
    await tab('Inbox').click();
    const card = await held(walker, 'walker', 2, key());
    await card.getByTestId('held-because').getByText('a rule of the guard held it').waitFor();
    await card
      .getByTestId('held-by-guard')
      .getByText(/^the guard’s new counterparty rule: .*first spend/)
      .waitFor();
    await card.getByLabel('Reason').fill('guard drill');
    await card.getByRole('button', { name: 'Reject' }).click();
    await card.waitFor({ state: 'detached' });
  }, 120_000);

  it('lists the members with their roles; a member added in the page and the governance changed from the values in force each wait for the other admin’s signature (the page says so), then show; each field’s error next to it', async () => {
    await tab('Members').click();
    const members = page.getByRole('region', { name: 'The group’s members' });
    await members.getByRole('row', { name: /you\s+admin/ }).waitFor();
    await members
      .getByRole('row', { name: new RegExp(`${shortOf(second.wallet.address)}\\s+admin`) })
      .waitFor();
    await members.getByRole('row', { name: new RegExp(`${shortOf(viewer.address)}\\s+viewer`) }).waitFor();
    const add = page.getByRole('form', { name: 'Add a member' });
    await add.getByLabel('Wallet').fill('0OIl');
    await add.getByRole('button', { name: 'Propose' }).click();
    await add
      .getByText('Wallet is not a Solana address: an address is 32 to 44 letters and digits (base58).')
      .waitFor();
    const approver = generateSigner().address;
    await add.getByLabel('Wallet').fill(approver);
    await add.getByLabel('Role').selectOption('approver');
    await add.getByRole('button', { name: 'Propose' }).click();
    await add
      .getByTestId('proposed')
      .getByText(
        /^Proposed and signed by you \(1 of 2 signatures\): nothing changes until the other admins sign proposal \S+ \(in the Inbox\)\.$/,
      )
      .waitFor();
    await axe('members');
    const pending = async (action: string) => {
      const listed = await world.client.call<{ proposals: ProposalReply[] }>(
        'GET',
        `${groupApi()}/proposals?status=pending`,
        { token: second.token },
      );
      return listed.body.proposals.find((p) => p.action === action)!;
    };
    const asked = await pending('member.add');
    expect(asked.params).toEqual({ wallet: approver, role: 'approver' });
    expect((await signProposal(world.client, second, asked)).body.status).toBe('executed');
    await members.getByRole('row', { name: new RegExp(`${shortOf(approver)}\\s+approver`) }).waitFor();

    // The governance, from the values in force: a quorum the admins cannot make said next to its field.
    const governance = page.getByRole('form', { name: 'Change the governance' });
    await page
      .getByTestId('governance-in-force')
      .getByText(/needs the signatures of 2 of the group’s 2 admins \(quorum 2\); it is made as soon/)
      .waitFor();
    expect(await governance.getByLabel('Quorum').inputValue()).toBe('2');
    expect(await governance.getByLabel('Delay (hours)').inputValue()).toBe('0');
    expect(await governance.getByLabel('Safe destination').inputValue()).toBe(world.operator.wallet.address);
    await governance.getByLabel('Quorum').fill('3');
    await governance.getByRole('button', { name: 'Propose' }).click();
    await governance.getByText('Quorum must be at most the number of admins (2).').waitFor();
    expect(await governance.getByLabel('Quorum').getAttribute('aria-invalid')).toBe('true');
    await governance.getByLabel('Quorum').fill('1');
    await governance.getByRole('button', { name: 'Propose' }).click();
    await governance
      .getByTestId('proposed')
      .getByText(/^Proposed and signed by you \(1 of 2 signatures\)/)
      .waitFor();
    const lower = await pending('governance.set');
    expect(lower.params).toEqual({ quorum: 1 });
    expect((await signProposal(world.client, second, lower)).body.status).toBe('executed');
    await page
      .getByTestId('governance-in-force')
      .getByText(/needs the signatures of 1 of the group’s 2 admins \(quorum 1\)/)
      .waitFor();
    await expect(governance.getByLabel('Quorum').inputValue()).resolves.toBe('1');
  }, 60_000);

  it('verifies the log, reconciles it with the chain, grants and removes an auditor (a bad wallet said next to its field)', async () => {
    await tab('Audit').click();
    await page.getByText('Auditors now: none').waitFor();
    await page.getByRole('button', { name: 'Verify the log' }).click();
    await page.getByText('The log is intact.').waitFor();
    // Every governed change, the ones two admins signed included, had its quorum.
    const governed = page.getByTestId('governance-verified');
    await governed.getByText(/^\d+ governed changes checked: each had its quorum\.$/).waitFor();
    expect(Number(/^\d+/.exec(await governed.innerText())![0])).toBeGreaterThanOrEqual(10);
    await page.getByRole('button', { name: 'Reconcile' }).click();
    await page.getByText('The log and the chain agree.').waitFor();
    const auditors = page.getByRole('form', { name: 'Grant or remove an auditor' });
    await auditors.getByLabel('Wallet').fill('0OIl');
    await auditors.getByRole('button', { name: 'Grant' }).click();
    await auditors
      .getByText('Wallet is not a Solana address: an address is 32 to 44 letters and digits (base58).')
      .waitFor();
    const auditor = generateSigner().address;
    await auditors.getByLabel('Wallet').fill(auditor);
    await auditors.getByRole('button', { name: 'Grant' }).click();
    await page.getByText(`Auditors now: ${auditor}`).waitFor();
    await tab('Webhooks').click();
    await tab('Audit').click();
    await page.getByText(`Auditors now: ${auditor}`).waitFor(); // listed from the service
    await auditors.getByLabel('Wallet').fill(auditor);
    await auditors.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('Auditors now: none').waitFor();
    await axe('audit');
  });

  it('says plainly when the service cannot be reached; keeps the session over a reload; once it ends, a sign-in comes back to the same page', async () => {
    await context.setOffline(true);
    await page.getByRole('button', { name: 'Verify the log' }).click();
    await page
      .getByRole('alert')
      .getByText(
        'The service cannot be reached: check that it is running and that this computer is online, then try again.',
      )
      .waitFor();
    await context.setOffline(false);

    await page.reload();
    await page.getByRole('heading', { name: /^Audit/, level: 1 }).waitFor(); // still signed in, same page
    // A session whose token expires in a few seconds.
    const expiresAt = Math.floor(Date.now() / 1000) + 4;
    const token = await shortToken(expiresAt);
    await page.evaluate(
      ([t, at, wallet]) =>
        (globalThis as unknown as InPage).sessionStorage.setItem(
          'tokenops.session',
          JSON.stringify({ token: t, wallet, expires_at: at, wallet_name: 'Test Wallet' }),
        ),
      [token, new Date(expiresAt * 1000).toISOString(), world.operator.wallet.address] as const,
    );
    await page.goto(groupPage('inbox'));
    await page.reload(); // the page reads its session from the tab's storage when it loads
    await page.getByRole('heading', { name: /^Inbox/, level: 1 }).waitFor();
    await page.getByText(/^session ends in \d+ s$/).waitFor();
    await page
      .getByText(/^Your session ended at .*: sign in again to go on where you were\.$/)
      .waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).hash).toBe(`#/groups/${encodeURIComponent(group)}/inbox`);
    expect((await stored(page)).session).toEqual({});
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
    await page.getByRole('heading', { name: /^Inbox/, level: 1 }).waitFor();
  });

  it('is usable at a phone’s width: nothing wider than the screen, no serious accessibility violation', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const fits = async () => {
      const [scroll, width] = await page.evaluate(() => [
        (globalThis as unknown as InPage).document.documentElement.scrollWidth,
        (globalThis as unknown as InPage).innerWidth,
      ]);
      expect(scroll).toBeLessThanOrEqual(width!);
    };
    await decided()
      .getByRole('row', { name: /rejected/ })
      .first()
      .waitFor();
    await fits();
    await axe('inbox-phone');
    await tab('Overview').click();
    await page.getByRole('region', { name: 'At a glance' }).waitFor();
    await page
      .getByTestId('live-events')
      .getByText(/confirmed on chain/)
      .first()
      .waitFor();
    await fits();
    await axe('overview-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  /** The base token and the aggregator of the world's groups, for a group written into the log. */
  const baseOf = async (w: World) => {
    const tokens = (
      await w.client.call<{ tokens: { symbol: string; mint: string }[] }>('GET', '/api/v1/tokens')
    ).body.tokens;
    const view = await w.client.call<{ whitelist: { label: string | null; address: string }[] }>(
      'GET',
      `/api/v1/orchestrator/groups/${w.groupId}`,
      { token: w.operator.token },
    );
    return {
      mint: tokens.find((t) => t.symbol === 'USDC')!.mint,
      aggregator: view.body.whitelist.find((e) => e.label === 'aggregator')!.address,
    };
  };

  it('says an entry "expires soon" relative to its own lifetime: on the allow-list, the overview and the groups list', async () => {
    // Entries added weeks and hours ago, in a group written into the log.
    const aged = await seedGroup(world, await baseOf(world), {
      agents: 0,
      recipients: 0,
      nearTheirEnd: true,
    });
    await page.goto(`${url}/console#/groups/${encodeURIComponent(aged.group)}/allow-list`);
    const table = page.getByTestId('allow-list');
    await table
      .getByRole('row', { name: /late-but-not-soon/ })
      .getByText(/^23h 59m \d\ds left$/)
      .waitFor();
    await table
      .getByRole('row', { name: /soon-two-hours/ })
      .getByText('expires soon')
      .waitFor();
    await table
      .getByRole('row', { name: /soon-thirty-days/ })
      .getByText('30 days', { exact: true })
      .waitFor();
    expect(
      await table
        .getByRole('row', { name: /late-but-not-soon/ })
        .getByText('expires soon')
        .count(),
    ).toBe(0);
    await table.getByLabel('Expiry').selectOption('soon');
    await page
      .getByTestId('allow-list-count')
      .getByText(/^2 of 4 match$/)
      .waitFor();
    const soon = await table.locator('tbody tr').allInnerTexts();
    expect(soon.map((t) => t.split(/\s/)[0])).toEqual(['soon-two-hours', 'soon-thirty-days']); // soonest first
    await tab('Overview').click();
    await page
      .getByRole('region', { name: 'At a glance' })
      .getByRole('link', {
        name: /Expiring soon\s+2 entries\s+soon-two-hours: 0h 0\dm \d\ds left; soon-thirty-days: 2 days 1[12] h left/,
      })
      .click();
    await page
      .getByTestId('allow-list-count')
      .getByText(/^2 of 4 match$/)
      .waitFor(); // the tile opened the filter
    await page.getByRole('link', { name: 'All groups' }).click();
    await page
      .getByRole('region', { name: 'Your groups' })
      .getByRole('row', { name: new RegExp(aged.group.slice(0, 4)) })
      .getByRole('link', { name: '2 expiring soon' })
      .waitFor();
  });

  it('draws 500 agents and 5,000 allow-list entries in under a second each once the group is in, filters and sorts them in under a second', async () => {
    const big = await seedGroup(world, await baseOf(world));
    // The service's first read of the group (through the API instance the page talks to) folds its
    // 5,500 entries: timed apart, it is the service's, not the page's.
    const read = Date.now();
    const answered = await fetch(api(`/orchestrator/groups/${big.group}`), {
      headers: bearer(world.operator.token),
    });
    expect(answered.status).toBe(200);
    await answered.arrayBuffer();
    const serviceMs = Date.now() - read;

    /**
     * Opens the page and answers how long the table took to draw once the group's answer was
     * in (the page's own work: read in the page, from the answer's end to its 50th row), and from the
     * page's start (the service's time included).
     */
    const drawn = async (section: string, testId: string, count: RegExp) => {
      const started = Date.now();
      await page.goto(`${url}/console#/groups/${encodeURIComponent(big.group)}/${section}`);
      const rowsAt = await (
        await page.waitForFunction(
          (id) => {
            const g = globalThis as unknown as InPage & { performance: { now(): number } };
            return (
              g.document.querySelectorAll(`[data-testid="${id}"] tbody tr`).length >= 50 &&
              g.performance.now()
            );
          },
          testId,
          { polling: 'raf', timeout: 60_000 },
        )
      ).jsonValue();
      const total = Date.now() - started;
      await page.getByTestId(`${testId}-count`).getByText(count).waitFor();
      const answeredAt = await page.evaluate(
        ([path, before]) => {
          const g = globalThis as unknown as {
            performance: { getEntriesByType(t: string): { name: string; responseEnd: number }[] };
          };
          const ends = g.performance
            .getEntriesByType('resource')
            .filter((e) => new URL(e.name).pathname === path && e.responseEnd <= before)
            .map((e) => e.responseEnd);
          return Math.max(...ends);
        },
        [`/api/v1/orchestrator/groups/${big.group}`, rowsAt as number] as const,
      );
      return { page: Math.round((rowsAt as number) - answeredAt), total };
    };
    /**
     * Types a search and answers how long the page took to show the filtered table: timed in the
     * page, from the keystroke's input event to the next frame whose count says it.
     */
    const filtered = async (testId: string, search: string, count: RegExp) => {
      const ms = await page.evaluate(
        ([id, text, source]) =>
          new Promise<number>((resolve) => {
            type El = { value: string; textContent: string; dispatchEvent(e: unknown): void };
            const g = globalThis as unknown as {
              document: { querySelector(s: string): El };
              performance: { now(): number };
              requestAnimationFrame(f: () => void): void;
              Event: new (type: string, init: { bubbles: boolean }) => unknown;
            };
            const box = g.document.querySelector(`[data-testid="${id}"] input[type="search"]`);
            const counter = g.document.querySelector(`[data-testid="${id}-count"]`);
            const wanted = new RegExp(source);
            const started = g.performance.now();
            box.value = text;
            box.dispatchEvent(new g.Event('input', { bubbles: true }));
            const look = () =>
              wanted.test(counter.textContent)
                ? resolve(g.performance.now() - started)
                : g.requestAnimationFrame(look);
            g.requestAnimationFrame(look);
          }),
        [testId, search, count.source] as const,
      );
      await page.getByTestId(`${testId}-count`).getByText(count).waitFor();
      await expect(page.getByTestId(testId).getByRole('searchbox').inputValue()).resolves.toBe(search);
      return Math.round(ms);
    };
    // What the page says while the group's answer is on its way (seen by an observer of the page).
    await page.evaluate(() => {
      const g = globalThis as unknown as {
        loadingSeen: boolean;
        MutationObserver: new (f: () => void) => { observe(n: unknown, o: unknown): void };
        document: { body: unknown; querySelector(s: string): { textContent: string } | null };
      };
      g.loadingSeen = false;
      new g.MutationObserver(() => {
        if (g.document.querySelector('[aria-busy="true"]')?.textContent === 'Loading the group…')
          g.loadingSeen = true;
      }).observe(g.document.body, { childList: true, subtree: true });
    });
    const agents = await drawn('agents', 'agents', /^500 in all; showing 1–50$/);
    expect(await page.evaluate(() => (globalThis as unknown as { loadingSeen: boolean }).loadingSeen)).toBe(
      true,
    );
    await axe('agents');
    const agentsFilterMs = await filtered('agents', 'agent-4', /^100 of 500 match; showing 1–50$/);
    // Sorted by a column's head: agent-499 first once the labels go down.
    const byName = page.getByTestId('agents').getByRole('button', { name: /^Agent/ });
    await byName.click();
    await byName.click();
    await expect(page.getByTestId('agents').locator('tbody tr').first().innerText()).resolves.toMatch(
      /^agent-499\s/,
    );
    const entries = await drawn(
      'allow-list',
      'allow-list',
      // The agents' own entries apart unless asked for: recipients and protocols, soonest to expire first.
      new RegExp(`^${big.entries + 1} of ${big.entries + big.agents + 1} match; showing 1–50$`),
    );
    await axe('allow-list');
    const entriesFilterMs = await filtered('allow-list', 'recipient-012', /^10 of \d+ match$/);
    console.log(
      `console at scale: the service's first answer for the group took ${serviceMs} ms; drawn once answered: 500 agents ${agents.page} ms (${agents.total} ms from the page's start), ${big.entries + big.agents + 1} entries ${entries.page} ms (${entries.total} ms); filtered: ${agentsFilterMs} ms, ${entriesFilterMs} ms`,
    );
    for (const ms of [agents.page, agentsFilterMs, entries.page, entriesFilterMs])
      expect(ms).toBeLessThan(1000);
  }, 120_000);

  it('had every page and dialog checked by axe-core (no serious or critical violation, every form without the browser’s bubbles), asked no other host, opened no browser dialog, and threw no error', () => {
    expect(Object.keys(checked).sort()).toEqual([
      'agent',
      'agents',
      'allow-list',
      'audit',
      'confirm',
      'freeze',
      'frozen',
      'frozen-by-guard',
      'groups',
      'guard',
      'inbox',
      'inbox-phone',
      'log',
      'members',
      'overview',
      'overview-phone',
      'policy',
      'proposals',
      'secret',
      'sign-in',
      'story',
      'webhooks',
    ]);
    expect(checked).toEqual(Object.fromEntries(Object.keys(checked).map((k) => [k, []])));
    const origin = new URL(world.client.url).origin;
    expect(requested.filter((u) => !u.startsWith(`${origin}/`) && !/^(data|blob):/.test(u))).toEqual([]);
    expect(refused).toEqual([]);
    expect(nativeDialogs).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
