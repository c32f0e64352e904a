/** The operator CLI against the service, as an operator would use it (in this process; the bin once). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { generateSigner } from '@tokenops/shared';
import { tokenops, tokenopsProcess } from '@tokenops/testing/cli';
import { startWorld, type World } from '@tokenops/testing/harness';

let world: World;
let keypair: string;
const cliAt = (url: string, wallet: string, ...args: string[]) =>
  tokenops('--url', url, '--keypair', wallet, ...args);
const cli = async (...args: string[]) => (await cliAt(world.service.url, keypair, ...args)).stdout;
/** Another operator's keypair file, in the Solana CLI's format (as keygen writes it). */
let lister: string;

beforeAll(async () => {
  world = await startWorld();
  keypair = join(mkdtempSync(join(tmpdir(), 'cli-')), 'operator.json');
  lister = join(dirname(keypair), 'lister.json');
  const s = generateSigner();
  writeFileSync(lister, JSON.stringify([...s.seed, ...s.publicKey]), { mode: 0o600 });
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
      '--daily-limit',
      '30',
      '--label',
      'supplier',
    ),
  ) as { approved_amount: string; daily_limit: string; whitelist_entry_pda: string };
  expect(entry).toMatchObject({ approved_amount: '40', daily_limit: '30' });
  // Its daily limit lowered at once; lifted by a proposal, signed in the same command.
  const dailyLimit = async (amount: string) =>
    JSON.parse(
      await cli(
        '--json',
        'whitelist',
        'daily-limit',
        group.group_config_pda,
        entry.whitelist_entry_pda,
        amount,
      ),
    ) as { daily_limit: string | null; spent_last_24h: string | null };
  expect(await dailyLimit('20')).toMatchObject({ daily_limit: '20', spent_last_24h: '0' });
  expect(await dailyLimit('none')).toMatchObject({ daily_limit: null, spent_last_24h: null });
  const proposals = await cli('proposals', 'list', group.group_config_pda, '--status', 'executed');
  expect(proposals).toContain('allow_list.daily_limit');
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

it("lists the operator's own groups, one line each", async () => {
  const mine = JSON.parse(
    (await cliAt(world.service.url, lister, '--json', 'group', 'create', '--daily', '70')).stdout,
  ) as { group_config_pda: string };
  const listed = (await cliAt(world.service.url, lister, 'group', 'list')).stdout;
  expect(listed.trim().split('\n')).toHaveLength(1);
  expect(listed.split('\n').find((line) => line.startsWith(mine.group_config_pda))).toMatch(
    /created \S+ +agents 0 +allow-list 1 +per-tx \S+ daily 70 hourly \d+$/,
  );
  // The world's group belongs to another wallet: not listed.
  expect(listed).not.toContain(world.groupId);
}, 60_000);

it("grants, lists and removes a group's auditors", async () => {
  const { group_config_pda: group } = JSON.parse(
    (await cliAt(world.service.url, lister, '--json', 'group', 'create')).stdout,
  ) as { group_config_pda: string };
  const as = (...args: string[]) => cliAt(world.service.url, lister, '--json', 'auditors', ...args);
  const auditor = generateSigner().address;
  expect(JSON.parse((await as('grant', group, auditor)).stdout)).toMatchObject({ auditors: [auditor] });
  expect(JSON.parse((await as('list', group)).stdout)).toEqual({
    group_config_pda: group,
    auditors: [auditor],
  });
  expect(JSON.parse((await as('remove', group, auditor)).stdout)).toMatchObject({ auditors: [] });
  expect(JSON.parse((await as('list', group)).stdout)).toEqual({ group_config_pda: group, auditors: [] });
  // Another wallet's group: refused, in one line.
  await expect(cliAt(world.service.url, lister, 'auditors', 'list', world.groupId)).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/^tokenops: 403 forbidden/),
  });
}, 60_000);

it('names the URL it tried, and the setting that changes it, when nothing answers there', async () => {
  // Port 2: nothing here listens below 1024. A port found free a moment ago can be taken by another
  // suite's server before the CLI tries it; and fetch refuses port 1 as a "bad port" without trying.
  const nowhere = 'http://127.0.0.1:2';
  // The bin, as a process: what the shell sees (exit code 1, one line on stderr).
  const failed = tokenopsProcess('--url', nowhere, '--keypair', lister, 'tokens');
  await expect(failed).rejects.toMatchObject({ code: 1 });
  const { stderr } = (await failed.catch((e: unknown) => e)) as { stderr: string };
  expect(stderr).toContain(`cannot reach the service at ${nowhere}`);
  expect(stderr).toMatch(/ECONNREFUSED/);
  expect(stderr).toMatch(/--url <url> or the TOKENOPS_URL environment variable/);
}, 30_000);

it('says what is wrong, in one line, with exit code 1', async () => {
  await expect(cli('group', 'show', generateSigner().address)).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/^tokenops: 404 not_found/),
  });
}, 30_000);
