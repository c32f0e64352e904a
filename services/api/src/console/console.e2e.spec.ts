/**
 * The operator console, as an operator uses it: in a real headless Chromium (Debian's `chromium`, or
 * CHROMIUM_PATH), signed in by a Wallet Standard wallet injected into the page (it signs in this
 * process with the operator's key), the operator creates a group, allow-lists a recipient, invites an
 * agent; the agent (over the agent API) registers and pays the recipient, and the page shows the
 * spend live and its daily gauge move; an approval policy previewed and applied, and the agent's held
 * transfers approved (the page signs with the wallet) and rejected in the approvals inbox; then a key
 * rotated (the old one refused), the agent revoked, the log verified. axe-core checks every page, at 1280x800 and at a phone's width. The console's
 * server-sent events are tested over HTTP too: a client that reconnects with Last-Event-ID misses
 * nothing. It runs on the embedded service and again on the server topology.
 *
 * CONSOLE_SCREENSHOTS=<folder> (npm run console:screenshots) saves the pages' screenshots there for
 * docs/console.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
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
} from '@tokenops/testing/harness';
import { startReceiver, testCertificates, type Receiver } from '@tokenops/testing/tls';
import { TcpProxy } from '@tokenops/testing/tcp-proxy';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let world: World;
let browser: Browser;
/** A webhook receiver (HTTPS, on the loopback address the service's policy lets through in tests). */
let receiver: Receiver;

beforeAll(async () => {
  // The bundle as the sources are now (npm ci builds it too), by the project's own script.
  execFileSync(process.execPath, [join(__dirname, '../../../../packages/console/scripts/build.mjs')]);
  // On the server topology the delivery worker is a process of its own, with the stack's CA.
  const tls = stackWebhookTls() ?? (await testCertificates({ addresses: [RECEIVER_HOST] }));
  receiver = await startReceiver({ tls, host: RECEIVER_HOST });
  [world, browser] = await Promise.all([
    startWorld({
      webhooks: { allowedPrivateHosts: [`${RECEIVER_HOST}:${receiver.port}`], ca: tls.ca, retryBaseMs: 100 },
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
    const added = await world.client.call('POST', `/api/v1/orchestrator/groups/${group}/whitelist`, {
      token: world.operator.token,
      body: { address: recipient, type: 1, approved_amount: '5', ttl_seconds: 3600 },
    });
    expect(added.status).toBe(201);
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
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(world.operator.wallet.address)
      .setIssuedAt()
      .setExpirationTime(expiresAt)
      .setAudience('tokenops-operator')
      .sign(world.service.jwtSecret);
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

/** The serious and critical violations axe-core finds on the page as it is. */
async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the browser's protocol, so the page's policy (no inline script) does not apply.
  await page.evaluate(AXE);
  const found = await page.evaluate(
    async () => (await (globalThis as unknown as InPage).axe.run()).violations,
  );
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
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
    const controls = document.querySelectorAll('a[href], button:not([disabled]), input:not([disabled])');
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

describe('the console in a browser', () => {
  let context: BrowserContext;
  let page: Page;
  const requested: string[] = [];
  const refused: string[] = [];
  const checked: Record<string, string[]> = {};

  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await withWallet(context);
    page = await context.newPage();
    page.on('request', (r) => void requested.push(r.url()));
    page.on('console', (m) => void (/Content Security Policy/.test(m.text()) && refused.push(m.text())));
    page.on('dialog', (d) => void d.accept());
  });
  afterAll(async () => context?.close());

  const axe = async (name: string) => {
    checked[name] = await axeViolations(page);
    await screenshot(page, name);
  };

  it('signs in with a keypair file opened in the page (read in memory, never sent)', async () => {
    const other = await browser.newContext();
    try {
      const tab = await other.newPage();
      const signer = generateSigner();
      const keypair = JSON.stringify([...signer.seed, ...signer.publicKey]);
      const sent: string[] = [];
      tab.on('request', (r) => void sent.push(r.postData() ?? ''));
      await tab.goto(`${world.client.url}/console`);
      await tab.getByLabel('Keypair file (JSON)').setInputFiles({
        name: 'id.json',
        mimeType: 'application/json',
        buffer: Buffer.from(keypair),
      });
      await tab.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
      await tab.getByText('No group yet: create one below.').waitFor(); // a new wallet owns none
      expect(sent.some((body) => body.includes(keypair) || body.includes(bs58.encode(signer.seed)))).toBe(
        false,
      );
    } finally {
      await other.close();
    }
  });

  it('signs in with the wallet, by keyboard', async () => {
    await page.goto(`${world.client.url}/console`);
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).waitFor();
    await axe('sign-in');
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
    // The world's group is the operator's: it is listed.
    await page.getByRole('link', { name: new RegExp(world.groupId.slice(0, 6)) }).waitFor();
    await axe('groups');
    await tabReachesEverything(page);
  });

  let agent: { id: string; key: string };
  const recipient = generateSigner().address;

  it('creates a group, subscribes a webhook, allow-lists a recipient, invites an agent (the code shown once)', async () => {
    await page.getByLabel('Per-transaction limit').fill('100');
    await page.getByLabel('Daily limit').fill('1000');
    await page.getByLabel('Transactions an hour').fill('30');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.waitForURL(/#\/groups\/[1-9A-HJ-NP-Za-km-z]+$/);
    await page.getByText('Defaults: 100 a transaction, 1000 a day, 30 transactions an hour.').waitFor();

    // The fleet's events to a webhook (its secret shown once), before anything happens in the group.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('No subscription yet.').waitFor();
    await page.getByLabel('HTTPS URL').fill(`${receiver.url}console`);
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.getByTestId('shown-once').waitFor();
    await page.getByRole('listitem', { name: `Subscription ${receiver.url}console` }).waitFor();
    await page.getByRole('link', { name: 'Overview' }).click();

    const allow = page.getByRole('region', { name: 'Allow-list' });
    await allow.getByLabel('Address').fill(recipient);
    await allow.getByLabel('Label').fill('supplier');
    await allow.getByLabel('Budget').fill('500');
    await allow.getByLabel('Lifetime (hours)').fill('2');
    await allow.getByRole('button', { name: 'Allow' }).click();
    const row = allow.getByRole('row', { name: /supplier/ });
    await row.waitFor();
    const ttl = /(1h 59m|2h 00m) \d\ds left/;
    const before = ttl.exec(await row.innerText())?.[0];
    expect(await row.innerText()).toMatch(/0 \/ 500/);
    expect(before).toBeDefined();
    // It counts down.
    await row.getByText(ttl).filter({ hasNotText: before! }).waitFor({ timeout: 3000 });

    const invite = page.getByRole('region', { name: 'Invite an agent' });
    await invite.getByLabel('Label').fill('buyer');
    await invite.getByRole('button', { name: 'Invite' }).click();
    const code = await invite.getByTestId('shown-once').innerText();
    expect(code.length).toBeGreaterThan(10);
    await page
      .getByRole('listitem', { name: /Agent buyer/ })
      .getByText('invited')
      .waitFor();

    // The agent, over the agent API: registers with the code, gets funds, and (below) pays.
    const registered = await world.client.call<{ api_key: string; agent_wallet_pda: string }>(
      'POST',
      '/api/v1/register',
      {
        body: { invitation_code: code },
      },
    );
    expect(registered.status).toBe(200);
    agent = { id: registered.body.agent_wallet_pda, key: registered.body.api_key };
    const funded = await world.client.call('POST', '/api/v1/dev/airdrop', {
      token: world.operator.token,
      body: { to: agent.id, amount: 300 },
    });
    expect(funded.status).toBe(200);
  });

  it('shows the agent’s transfer live, and its daily gauge and the budget move', async () => {
    const card = page.getByRole('listitem', { name: /Agent buyer/ });
    // Its registration comes in as an event: the page reads the group again.
    await card.getByText('active').waitFor();
    await expect(card.getByTestId('buyer daily').innerText()).resolves.toBe('0 / 1000');
    await page.getByText('Live: new events appear here').waitFor();

    const sent = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: recipient, amount: 25, idempotency_key: key() },
    });
    expect(sent.status).toBe(200);
    const live = page.getByTestId('live-events');
    await live
      .getByText(/transfer: 25 to .* accepted/)
      .first()
      .waitFor({ timeout: 20_000 });
    await live
      .getByText(/confirmed on chain/)
      .first()
      .waitFor({ timeout: 20_000 });
    await card.getByText(/^25(\.\d+)? \/ 1000$/).waitFor({ timeout: 10_000 });
    await page
      .getByRole('region', { name: 'Allow-list' })
      .getByText(/^25(\.\d+)? \/ 500$/)
      .waitFor();
    await page.getByTestId(`spend-total-${agent.id}`).getByText(/^25/).waitFor();
    await axe('group');
    await tabReachesEverything(page);

    // What the page drew, as the routes answer it.
    const group = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
    const usage = await world.client.call<{ agents: Record<string, unknown>[] }>(
      'GET',
      `/api/v1/orchestrator/groups/${group}/usage`,
      { token: world.operator.token },
    );
    expect(usage.body.agents).toEqual([
      expect.objectContaining({
        agent_wallet_pda: agent.id,
        spent_today: expect.stringMatching(/^25(\.\d+)?$/),
        hourly_count: 1,
        balances: expect.objectContaining({ USDC: expect.stringMatching(/^27[45](\.\d+)?$/) }),
      }),
    ]);
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
        [agent.id, expect.stringMatching(/^25/)],
      ]);
      expect(spend.body.recipients.map((r) => r.key)).toEqual([recipient]);
      // The spend is in the latest bucket, and only there.
      expect(spend.body.recipients[0]!.amounts.at(-1)).toMatch(/^25/);
      expect(spend.body.recipients[0]!.amounts.slice(0, -1).every((a) => a === '0')).toBe(true);
    }
  });

  it('says it is disconnected when its event stream drops (as when the service stops), and is live again once it reconnects, missing nothing and showing nothing twice', async () => {
    // A tab of its own, on the world's group, reaching the service through a proxy the test can cut.
    const proxy = await TcpProxy.open(world.client.url);
    const tab = await context.newPage();
    try {
      await tab.goto(`${proxy.url(world.client.url)}/console`);
      await tab.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
      await tab.getByRole('link', { name: new RegExp(world.groupId.slice(0, 6)) }).click();
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
      const added = shown.filter({ hasText: 'whitelist entry added' });
      await state.getByText('Live: new events appear here').waitFor();
      await until(async () => (await shown.count()) === (await logged()));
      const addedBefore = await added.count();

      await proxy.cut();
      await state.getByText('Disconnected: the service does not answer').waitFor();
      // While the page cannot reach the service, the operator allow-lists a recipient.
      const allowed = await world.client.call(
        'POST',
        `/api/v1/orchestrator/groups/${world.groupId}/whitelist`,
        {
          token: world.operator.token,
          body: { address: generateSigner().address, type: 1, approved_amount: '5', ttl_seconds: 3600 },
        },
      );
      expect(allowed.status).toBe(201);
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

  it('previews an approval policy over the group’s spends and applies it; held transfers wait in the inbox: one approved by a signature made in the page (the agent’s retry answers 200), one rejected (403)', async () => {
    await page.getByRole('link', { name: 'Approvals' }).click();
    await page.getByText('No spend waits for approval.').waitFor();
    const policy = page.getByRole('region', { name: 'Approval policy' });
    // Bad input: the service's refusal is shown.
    await policy.getByLabel('Threshold (empty: none)').fill('ten');
    await policy.getByRole('button', { name: 'Preview' }).click();
    await policy.getByRole('alert').waitFor();
    // The transfer of 25 above, judged again under a threshold of 20: it would have been held.
    await policy.getByLabel('Threshold (empty: none)').fill('20');
    await policy.getByRole('button', { name: 'Preview' }).click();
    const preview = policy.getByTestId('policy-preview');
    await preview.waitFor();
    expect(await preview.locator('p').innerText()).toMatch(
      /: 1 spends judged again; 1 would be held for approval; none would be blocked\.$/,
    );
    expect(await preview.getByRole('row', { name: /supplier/ }).innerText()).toMatch(
      /transfer of 25(\.\d+)?\s+supplier .*\s+accepted\s+held$/,
    );
    await axe('approval-preview');
    await policy.getByRole('button', { name: 'Apply this policy' }).click();
    await policy
      .getByTestId('policy-applied')
      .getByText(/spends above 20 are held; 1 of 1 approver\(s\) decide within 24 hours/)
      .waitFor();

    // The agent's transfers above the threshold are held; each appears in the inbox as it comes.
    const transfer = (amount: number, idempotency_key: string) =>
      world.client.call<{ error?: string; status?: string }>('POST', '/api/v1/transfer', {
        token: agent.key,
        body: { to: recipient, amount, idempotency_key },
      });
    const held = async (amount: number, k: string) => {
      const answer = await transfer(amount, k);
      expect([answer.status, answer.body.error]).toEqual([409, 'approval_required']);
      const card = page.getByRole('listitem', { name: `Held transfer of ${amount} by buyer` });
      await card.waitFor({ timeout: 10_000 });
      return card;
    };
    /** The agent's retry with the same key, once it answers other than "still held". */
    const retried = (amount: number, k: string) =>
      until(async () => {
        const answer = await transfer(amount, k);
        return answer.status !== 409 && answer;
      }, 20_000);

    const first = key();
    const card = await held(30, first);
    expect(await card.getByTestId('recipient-history').innerText()).toMatch(
      /^25(\.\d+)? confirmed to it in the last 7 days$/,
    );
    await card.getByText(/^23h 59m \d\ds left$/).waitFor();
    await axe('approvals');
    await tabReachesEverything(page);
    await card.getByRole('button', { name: 'Approve (sign)' }).click();
    await card.waitFor({ state: 'detached' });
    const decided = page.getByRole('region', { name: 'Decided', exact: true });
    const signer = world.operator.wallet.address;
    await decided
      .getByRole('row', { name: /approved/ })
      .getByTitle(signer)
      .waitFor();
    const paid = await retried(30, first);
    expect([paid.status, paid.body.status]).toEqual([200, 'confirmed']);

    const second = key();
    const other = await held(40, second);
    await other.getByLabel('Reason (optional)').fill('not this week');
    await other.getByRole('button', { name: 'Reject' }).click();
    await other.waitFor({ state: 'detached' });
    await decided
      .getByRole('row', { name: /rejected.*transfer of 40/ })
      .getByText('nobody')
      .waitFor();
    const refusedAnswer = await retried(40, second);
    expect([refusedAnswer.status, refusedAnswer.body.error]).toEqual([403, 'approval_rejected']);
    await page.getByRole('link', { name: 'Overview' }).click();
  }, 60_000);

  it('changes the agent’s limits, rotates its key (the new one shown once, the old one refused) and revokes it', async () => {
    const card = page.getByRole('listitem', { name: /Agent buyer/ });
    await card.getByRole('button', { name: 'Change limits' }).click();
    await card.getByRole('textbox', { name: 'Daily', exact: true }).fill('2000');
    await card.getByRole('button', { name: 'Save limits' }).click();
    await card.getByText(/^55(\.\d+)? \/ 2000$/).waitFor(); // 25, and 30 approved

    await card.getByRole('button', { name: 'Rotate key' }).click();
    const fresh = await card.getByTestId('shown-once').innerText();
    expect(fresh).not.toBe(agent.key);
    const balance = (token: string) => world.client.call('GET', '/api/v1/balance', { token });
    expect((await balance(agent.key)).status).toBe(401);
    expect((await balance(fresh)).status).toBe(200);

    await card.getByRole('button', { name: 'Revoke' }).click();
    await card.getByText('revoked').waitFor();
    expect((await balance(fresh)).status).toBe(401);
  });

  it('verifies the log, reconciles it with the chain, grants and removes an auditor; redelivers a webhook event, rotates its secret, deletes the webhook', async () => {
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByText('Auditors now: none').waitFor();
    await page.getByRole('button', { name: 'Verify the log' }).click();
    await page.getByText('The log is intact.').waitFor();
    await page.getByRole('button', { name: 'Reconcile' }).click();
    await page.getByText('The log and the chain agree.').waitFor();
    const auditor = generateSigner().address;
    await page.getByRole('region', { name: 'Auditors' }).getByLabel('Wallet').fill(auditor);
    await page.getByRole('button', { name: 'Grant' }).click();
    await page.getByText(`Auditors now: ${auditor}`).waitFor();
    // Listed from the service when the page is opened again.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByText(`Auditors now: ${auditor}`).waitFor();
    await page.getByRole('region', { name: 'Auditors' }).getByLabel('Wallet').fill(auditor);
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('Auditors now: none').waitFor();
    await axe('audit');

    // The webhook's deliveries: each transfer's confirmation (the 25, the approved 30) delivered once;
    // one sent again on request.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    const card = page.getByRole('listitem', { name: `Subscription ${receiver.url}console` });
    const confirmed = card.getByRole('row', { name: /transfer\.confirmed/ });
    await confirmed.nth(1).getByRole('cell', { name: 'delivered' }).waitFor();
    await confirmed.first().getByRole('cell', { name: 'delivered' }).waitFor();
    expect(await confirmed.count()).toBe(2);
    const sent = () =>
      receiver.requests.filter((r) => r.url === '/console' && r.body.includes('"transfer.confirmed"')).length;
    expect(sent()).toBe(2);
    await confirmed
      .first()
      .getByRole('button', { name: /Send transfer\.confirmed .* again/ })
      .click();
    for (const giveUpAt = Date.now() + 10_000; sent() < 3 && Date.now() < giveUpAt;)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sent()).toBe(3);
    await card.getByRole('button', { name: 'Rotate secret' }).click();
    await card.getByTestId('shown-once').waitFor();
    await axe('webhooks');
    await card.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No subscription yet.').waitFor(); // a deleted subscription is listed no more
  });

  it('is usable at a phone’s width: nothing wider than the screen, no serious accessibility violation', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: /^Group/, level: 1 }).waitFor();
    await page.getByRole('listitem', { name: /Agent buyer/ }).waitFor();
    const fits = async () => {
      const widths = await page.evaluate(() => {
        const { document, innerWidth } = globalThis as unknown as InPage;
        return [document.documentElement.scrollWidth, innerWidth];
      });
      expect(widths[0]).toBeLessThanOrEqual(widths[1]!);
    };
    await fits();
    await axe('group-phone');
    // The approvals tab, its decided spends listed (the agent's revocation decided nothing more).
    await page.getByRole('link', { name: 'Approvals' }).click();
    await page
      .getByRole('region', { name: 'Decided', exact: true })
      .getByRole('row', { name: /rejected/ })
      .waitFor();
    await fits();
    await axe('approvals-phone');
  });

  it('withdraws an agent’s tokens in an emergency, once the operator typed the confirmation', async () => {
    const other = await world.agent({}, 40); // an agent of the world's group, with 40 USDC
    await page.goto(`${world.client.url}/console#/groups/${encodeURIComponent(world.groupId)}`);
    const card = page.getByRole('listitem', { name: `Agent ${other.id}` });
    await card.getByText('active').waitFor();
    await card.getByRole('button', { name: 'Emergency withdrawal' }).click();
    await card.getByLabel('Confirmation').fill('withdraw');
    await card.getByRole('button', { name: 'Withdraw everything' }).click();
    // The browser refuses the form: the confirmation is not the word asked for.
    expect(
      await card
        .getByLabel('Confirmation')
        .evaluate((i) => (i as unknown as { validity: { valid: boolean } }).validity.valid),
    ).toBe(false);
    await card.getByLabel('Confirmation').fill('WITHDRAW');
    await card.getByRole('button', { name: 'Withdraw everything' }).click();
    await card.getByText(/Withdrawn to .*: 40 USDC/).waitFor();
    await card.getByText('revoked').waitFor();
    const balance = await world.client.call('GET', '/api/v1/balance', { token: other.key });
    expect(balance.status).toBe(401);
  });

  it('had every page checked by axe-core (no serious or critical violation), and asked no other host', () => {
    expect(Object.keys(checked).sort()).toEqual([
      'approval-preview',
      'approvals',
      'approvals-phone',
      'audit',
      'group',
      'group-phone',
      'groups',
      'sign-in',
      'webhooks',
    ]);
    expect(checked).toEqual(Object.fromEntries(Object.keys(checked).map((k) => [k, []])));
    const origin = new URL(world.client.url).origin;
    expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url))).toEqual(
      [],
    );
    expect(refused).toEqual([]);
  });
});
