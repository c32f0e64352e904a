/**
 * The API reference pages, as a reader sees them: each page opened in a real headless Chromium
 * (Debian's `chromium`, or CHROMIUM_PATH) shows every operation of the document it renders, its
 * client sends a request to the service and shows the answer, and the browser asked no host but the
 * service for anything, nor had the page's policy refuse anything.
 *
 * On the server topology only the HTTP part runs (the pages and the renderer are served by each API
 * process): the pages are the same code and the same static files there, so a second browser run
 * would show nothing the embedded run does not.
 */
import { readFileSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startWorld, type World } from '@tokenops/testing/harness';
import { DOC_PAGES } from './pages';
import { RENDERER_URL } from './renderer';

const onTopology = (globalThis as { TOPOLOGY?: boolean }).TOPOLOGY === true;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

interface Operation {
  operationId?: string;
  summary?: string;
}
interface Document {
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

/** What names each operation on the page: its summary (the renderer's title), else its operationId. */
function operationTitles(doc: Document): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => {
      const op = item[m]!;
      const title = op.summary ?? op.operationId;
      if (!title) throw new Error(`${m.toUpperCase()} ${path} has neither summary nor operationId`);
      return title;
    }),
  );
}

/** The page's visible text once it shows every one of the titles, or when the time is up. */
async function textShowing(tab: Page, titles: string[], ms: number): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const text = await tab.locator('body').innerText();
    if (titles.every((t) => text.includes(t)) || Date.now() > deadline) return text;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let world: World;
let browser: Browser | undefined;

beforeAll(async () => {
  world = await startWorld();
  if (!onTopology) browser = await chromium.launch({ executablePath: CHROMIUM });
});

afterAll(async () => {
  await browser?.close();
  await world?.close();
});

describe('the renderer', () => {
  const bundle = readFileSync(require.resolve('@scalar/api-reference/browser/standalone.js'));

  it('is the bundle from node_modules, gzipped for a client that takes it, and revalidated by its ETag', async () => {
    const zipped = await fetch(`${world.client.url}${RENDERER_URL}`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(Buffer.from(await zipped.arrayBuffer()).equals(bundle)).toBe(true); // fetch unzips it

    const plain = await fetch(`${world.client.url}${RENDERER_URL}`, {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(Buffer.from(await plain.arrayBuffer()).equals(bundle)).toBe(true);

    const etag = zipped.headers.get('etag')!;
    const again = await fetch(`${world.client.url}${RENDERER_URL}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });
});

describe.each(DOC_PAGES)('the reference page $path', (page) => {
  it('is HTML under a policy that allows this service only, loading the renderer from it', async () => {
    const res = await fetch(`${world.client.url}${page.path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("connect-src 'self';");
    const html = await res.text();
    expect(html).toContain(`<script src="${RENDERER_URL}">`);
  });

  (onTopology ? it.skip : it)(
    'shows every operation of its document in a browser, tries one against the service, and asks no other host for anything',
    async () => {
      const doc = await world.client.call<Document>('GET', page.document);
      expect(doc.status).toBe(200);
      const titles = operationTitles(doc.body);
      expect(titles.length).toBeGreaterThan(0);
      const origin = new URL(world.client.url).origin;
      const api = new URL(doc.body.servers?.[0]?.url ?? '/', origin).href;

      const context = await browser!.newContext();
      const tab = await context.newPage();
      const requested: string[] = [];
      const refused: string[] = [];
      const failed: string[] = [];
      tab.on('request', (r) => void requested.push(r.url()));
      tab.on('response', (r) => void (r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`)));
      // A refusal by the page's policy means the policy broke the page (or the page tried another host).
      tab.on('console', (m) => void (/Content Security Policy/.test(m.text()) && refused.push(m.text())));
      try {
        await tab.goto(`${world.client.url}${page.path}`, { waitUntil: 'networkidle' });
        const text = await textShowing(tab, titles, 20_000);
        expect(titles.filter((t) => !text.includes(t))).toEqual([]);
        expect(await tab.title()).toBe(page.title);
        expect(requested).toContain(`${origin}${page.document}`);
        expect(failed).toEqual([]);

        // The renderer's client: the first operation, sent as it is prefilled; the request goes to
        // this service (whose answers carry a request id) and its answer is shown.
        await tab.getByText('Test Request').first().click();
        const [answer] = await Promise.all([
          tab.waitForResponse((r) => r.url().startsWith(api) && r.url() !== `${origin}${page.document}`),
          tab.keyboard.press('Control+Enter'),
        ]);
        expect(answer.headers()['x-request-id']).toBeTruthy();
        await tab.getByRole('dialog').getByText(String(answer.status())).first().waitFor();
      } finally {
        await context.close();
      }
      expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url))).toEqual(
        [],
      );
      expect(refused).toEqual([]);
    },
  );
});
