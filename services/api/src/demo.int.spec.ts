/**
 * The first start's demo, and what a restart prints: the invitation code while it still registers,
 * and once it is redeemed, that it is, and how to get an agent key or a new invitation.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@tokenops/shared/process';
import { demoInstructions, ensureDemo } from './demo';
import { startEmbedded, type Embedded } from './embedded';
import { databaseTemplate } from '@tokenops/testing/database-template';

let service: Embedded;
let dataDir: string;
beforeAll(async () => {
  service = await startEmbedded({
    port: 0,
    databaseTemplate: await databaseTemplate(),
    keyEncryptionKey: randomBytes(32),
    jwtSecret: randomBytes(32),
    logger: createLogger('silent'),
  });
  dataDir = mkdtempSync(join(tmpdir(), 'tokenops-demo-'));
}, 60_000);
afterAll(async () => {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** What `npm start` prints, on this start. */
const started = async () => {
  const { demo, created, invitation } = await ensureDemo(service.ctx, dataDir);
  return {
    demo,
    created,
    text: demoInstructions(service.url, demo, created, service.ctx.chain.tokens, invitation),
  };
};

it('prints the invitation while it registers, and once redeemed says so and how to get a key or a new code', async () => {
  const first = await started();
  expect(first.created).toBe(true);
  expect(first.text).toContain(`"invitation_code":"${first.demo.invitation_code}"`);
  // The history line says what the history lists.
  expect(first.text).toMatch(
    /the history \(it lists transfers and swaps; deposits and withdrawals show in the balance\)/,
  );

  // A restart before anyone registered: the same code, still usable.
  const again = await started();
  expect(again.created).toBe(false);
  expect(again.text).toContain(`"invitation_code":"${first.demo.invitation_code}"`);

  const registered = await fetch(`${service.url}/api/v1/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ invitation_code: first.demo.invitation_code }),
  });
  expect(registered.status).toBe(200);

  // A restart after: the spent code is not offered; the way to a key and to a new invitation is.
  const restarted = await started();
  expect(restarted.text).not.toContain(first.demo.invitation_code);
  expect(restarted.text).toContain('The demo invitation is redeemed');
  const cli = `npx tokenops --url ${service.url} --keypair ${first.demo.operator_keypair}`;
  expect(restarted.text).toContain(`${cli} rotate-key ${first.demo.agent_wallet_pda}`);
  expect(restarted.text).toContain(`${cli} invite ${first.demo.group_config_pda}`);
}, 60_000);
