/** The operator CLI, run as a process against the service, as an operator would. */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateSigner } from '@tokenops/shared';
import { startWorld, type World } from '../testing/harness';

const run = promisify(execFile);
const BIN = join(__dirname, '../../bin/tokenops.js');
let world: World;
let keypair: string;
const cli = async (...args: string[]) =>
  (
    await run(process.execPath, [BIN, '--url', world.service.url, '--keypair', keypair, ...args], {
      env: { ...process.env, NODE_OPTIONS: '' },
    })
  ).stdout;

beforeAll(async () => {
  world = await startWorld();
  keypair = join(mkdtempSync(join(tmpdir(), 'cli-')), 'operator.json');
});
afterAll(async () => world.close());

it('creates a group, allow-lists a recipient, invites an agent whose code registers, and shows the group', async () => {
  expect(await cli('keygen', keypair)).toMatch(/^wallet: \w+/);
  const group = JSON.parse(await cli('--json', 'group', 'create', '--daily', '250')) as {
    group_config_pda: string;
    default_limits: { daily_limit: string };
  };
  expect(group.default_limits.daily_limit).toBe('250');
  const recipient = generateSigner().address;
  const entry = JSON.parse(
    await cli(
      '--json',
      'whitelist',
      'add',
      group.group_config_pda,
      recipient,
      '--type',
      '1',
      '--amount',
      '40',
      '--ttl',
      '3600',
      '--label',
      'supplier',
    ),
  ) as { approved_amount: string };
  expect(entry.approved_amount).toBe('40');
  const invited = JSON.parse(await cli('--json', 'invite', group.group_config_pda, '--per-tx', '5')) as {
    invitation_code: string;
  };
  const registered = await world.client.call('POST', '/api/v1/register', {
    body: { invitation_code: invited.invitation_code },
  });
  expect(registered.status).toBe(200);
  const funded = JSON.parse(await cli('--json', 'airdrop', recipient, '5')) as { amount: number };
  expect(funded.amount).toBe(5); // the airdrop signs in: it is an operator's
  const shown = await cli('group', 'show', group.group_config_pda);
  expect(shown).toContain(`address: ${recipient}`);
  expect(shown).toContain('label: supplier');
  // The CLI's own options are taken after the command too.
  const asJson = JSON.parse(await cli('group', 'show', group.group_config_pda, '--json')) as {
    group_config_pda: string;
  };
  expect(asJson.group_config_pda).toBe(group.group_config_pda);
}, 60_000);

it('says what is wrong, in one line, with exit code 1', async () => {
  await expect(cli('group', 'show', generateSigner().address)).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/^tokenops: 404 not_found/),
  });
}, 30_000);
