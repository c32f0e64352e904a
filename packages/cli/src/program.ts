/**
 * The operator CLI: its commands, each one call of the operator client (@tokenops/client, generated
 * from the operator OpenAPI document; session.ts signs in and prints).
 * `run` runs it on a list of arguments: the bin passes the process's own, tests theirs.
 */
import { Command, CommanderError, Option } from 'commander';
import { PassThrough } from 'node:stream';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { generateSigner } from '@tokenops/shared';
import type { OperatorClient } from '@tokenops/client';
import { createCli, describeFailure, processIo, type Cli, type Global, type Io } from './session';
import { webhookCommands } from './webhooks';
import { approvalCommands } from './approvals';
import { governanceCommands } from './governance';
import { reconcileCommand } from './reconcile';
import { verifyCommand } from './verify';

interface GroupList {
  groups: {
    group_config_pda: string;
    created_at: string;
    role: string;
    agents: number;
    whitelist_entries: number;
    default_limits: { per_tx_limit: string; daily_limit: string; hourly_tx_cap: number };
  }[];
}

/** One line per group. */
const groupLines = ({ groups }: GroupList): string =>
  groups.length === 0
    ? 'no groups yet (create one with: tokenops group create)'
    : groups
        .map(
          (x) =>
            `${x.group_config_pda}  ${x.role}  created ${x.created_at}  agents ${x.agents}  allow-list ${x.whitelist_entries}` +
            `  per-tx ${x.default_limits.per_tx_limit} daily ${x.default_limits.daily_limit} hourly ${x.default_limits.hourly_tx_cap}`,
        )
        .join('\n');

const limitOptions = (c: Command) =>
  c
    .option('--per-tx <amount>', 'largest single spend (base token)')
    .option('--daily <amount>', 'spend ceiling over 24 hours')
    .option('--hourly <count>', 'operations allowed per 60 minutes', (v) => Number(v));
/** The guard rules of a JSON file: `{rules: [...]}` or the list alone (the service checks each rule). */
function rulesIn(file: string): Parameters<OperatorClient['setGuard']>[1]['rules'] {
  if (!existsSync(file)) throw new Error(`--rules: no such file ${file}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new Error(`--rules: ${file} is not JSON`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(list))
    throw new Error(`--rules: ${file} holds neither {"rules": [...]} nor a list of rules`);
  return list as Parameters<OperatorClient['setGuard']>[1]['rules'];
}

const limitsFrom = (o: { perTx?: string; daily?: string; hourly?: number }) => ({
  ...(o.perTx !== undefined && { per_tx_limit: o.perTx }),
  ...(o.daily !== undefined && { daily_limit: o.daily }),
  ...(o.hourly !== undefined && { hourly_tx_cap: o.hourly }),
});

export function program(io: Io = processIo()): Command {
  const p = new Command('tokenops')
    // Set before the commands are added, so each of them inherits it: errors and help are thrown (the
    // caller sets the exit code) and written where the run writes.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.replace(/\n$/, '')),
      writeErr: (text) => void io.err.write(text),
    })
    .description('Operate token-operations groups: allow-lists, agents, limits, webhooks.')
    .addOption(new Option('--url <url>', 'the service').env('TOKENOPS_URL').default('http://127.0.0.1:8080'))
    .addOption(
      new Option('--keypair <file>', 'your wallet keypair file (Solana CLI format)')
        .env('TOKENOPS_KEYPAIR')
        .default('./data/demo-operator.json'),
    )
    .option('--json', 'print the answer as JSON')
    // A command may have an option of the same name (webhooks add --url: the receiver's); see
    // globalsAfterCommands.
    .enablePositionalOptions()
    .showHelpAfterError();
  const g = (): Global => p.opts<Global>();
  const cli: Cli = createCli(g, io);
  const { authed, print } = cli;

  p.command('keygen')
    .description('create a new keypair file')
    .argument('<file>')
    .action((file: string) => {
      if (existsSync(file)) throw new Error(`${file} exists; not overwriting a key`);
      const s = generateSigner();
      writeFileSync(file, JSON.stringify([...s.seed, ...s.publicKey]), { mode: 0o600 });
      print({ wallet: s.address, keypair: file });
    });
  p.command('tokens')
    .description('list the token registry')
    .action(async () => print(await cli.anonymous().listTokens()));
  p.command('venues')
    .description('list the lending venues (allow-list one with: whitelist add <group> <program> --type 2)')
    .action(async () => print(await cli.anonymous().listVenues()));
  p.command('pools')
    .description("the swap aggregator's local pools: pairs, reserves, fee")
    .action(async () => print(await cli.anonymous().listPools()));
  p.command('airdrop')
    .description('local chain only: pay an address as an outside party (signs in: operators only)')
    .argument('<to>')
    .argument('<amount>')
    .option('--mint <mint>', 'token (default: the base token)')
    .action(
      authed(async (api, to: string, amount: string, o: { mint?: string }) =>
        api.airdrop({ to, amount, ...(o.mint && { mint: o.mint }) }),
      ),
    );

  const group = p.command('group').description('groups you are a member of');
  limitOptions(
    group.command('create').description('create a group (its defaults apply to new agents)'),
  ).action(authed(async (api, o: Parameters<typeof limitsFrom>[0]) => api.createGroup(limitsFrom(o))));
  group
    .command('list')
    .description('your groups: id, your role, creation time, agents, allow-list entries, default limits')
    .action(
      authed(
        async (api) => api.listGroups(),
        (answer) => groupLines(answer as unknown as GroupList),
      ),
    );
  limitOptions(
    group
      .command('update')
      .description(
        "new defaults for the group's new agents, its name, its description (a rise: a proposal, signed here)",
      )
      .argument('<group>')
      .option('--name <name>')
      .option('--description <text>'),
  ).action(
    authed(
      async (
        api,
        id: string,
        o: Parameters<typeof limitsFrom>[0] & { name?: string; description?: string },
      ) => {
        return api.enact(
          await api.updateGroup(id, {
            ...limitsFrom(o),
            ...(o.name && { name: o.name }),
            ...(o.description && { description: o.description }),
          }),
        );
      },
    ),
  );
  group
    .command('show')
    .description("a group: defaults, agents (status, limits), allow-list (each budget's use)")
    .argument('<group>')
    .action(authed(async (api, id: string) => api.getGroup(id)));

  group
    .command('limits')
    .description(
      "the group's own limits over all its agents; with --daily or --hourly, sets them (a lift or a rise: a proposal, signed here)",
    )
    .argument('<group>')
    .option('--daily <amount>', "what its agents together may spend in any 24 hours ('none' lifts it)")
    .option(
      '--hourly <count>',
      "how many operations they together may make in any 60 minutes ('none' lifts it)",
    )
    .action(
      authed(async (api, id: string, o: { daily?: string; hourly?: string }) => {
        if (o.daily === undefined && o.hourly === undefined) return api.getGroupLimits(id);
        if (o.hourly !== undefined && o.hourly !== 'none' && !/^[0-9]+$/.test(o.hourly))
          throw new Error(`--hourly must be a whole number or none, not ${o.hourly}`);
        return api.enact(
          await api.setGroupLimits(id, {
            ...(o.daily !== undefined && { daily_limit: o.daily === 'none' ? null : o.daily }),
            ...(o.hourly !== undefined && { hourly_tx_cap: o.hourly === 'none' ? null : Number(o.hourly) }),
          }),
        );
      }),
    );

  group
    .command('guard')
    .description(
      "the group's guard rules; with --rules, replaces them (removing or loosening any: a proposal, signed here)",
    )
    .argument('<group>')
    .option(
      '--rules <file>',
      'a JSON file of the rules: {"rules": [{"kind": "velocity", "factor": 5, "min_count": 10, "action": "hold"}, ...]} or the list alone (\'none\' removes every rule)',
    )
    .action(
      authed(async (api, id: string, o: { rules?: string }) => {
        if (o.rules === undefined) return api.getGuard(id);
        return api.enact(await api.setGuard(id, { rules: o.rules === 'none' ? [] : rulesIn(o.rules) }));
      }),
    );

  const wl = p.command('whitelist').description('allow-list entries of a group');
  wl.command('add')
    .description(
      'allow an address: type 1 (recipient, needs --amount and --ttl) or 2 (protocol); a proposal, signed here with your keypair',
    )
    .argument('<group>')
    .argument('<address>')
    .requiredOption('--type <type>', '1 or 2', (v) => Number(v))
    .option('--amount <amount>', 'approved budget (type 1)')
    .option('--ttl <seconds>', 'lifetime (type 1)', (v) => Number(v))
    .option('--daily-limit <amount>', "what all the group's agents together may send it in any 24 hours")
    .option('--label <label>')
    .action(
      authed(
        async (
          api,
          id: string,
          address: string,
          o: { type: number; amount?: string; ttl?: number; dailyLimit?: string; label?: string },
        ) =>
          api.enact(
            await api.addWhitelistEntry(id, {
              address,
              type: o.type as 1 | 2,
              ...(o.amount && { approved_amount: o.amount }),
              ...(o.ttl && { ttl_seconds: o.ttl }),
              ...(o.dailyLimit && { daily_limit: o.dailyLimit }),
              ...(o.label && { label: o.label }),
            }),
          ),
      ),
    );
  wl.command('daily-limit')
    .description(
      "set an entry's own daily limit over all the group's agents ('none' lifts it); a lift or a rise is a proposal, signed here",
    )
    .argument('<group>')
    .argument('<entry>')
    .argument('<amount>', "an amount of the base token, or 'none'")
    .action(
      authed(async (api, id: string, entry: string, amount: string) =>
        api.enact(
          await api.changeWhitelistEntry(id, entry, { daily_limit: amount === 'none' ? null : amount }),
        ),
      ),
    );
  wl.command('remove')
    .description('remove an entry')
    .argument('<group>')
    .argument('<entry>')
    .action(authed(async (api, id: string, entry: string) => api.removeWhitelistEntry(id, entry)));

  limitOptions(
    p
      .command('invite')
      .description(
        'invite one agent (a proposal, signed here with your keypair): prints its one-time invitation code',
      )
      .argument('<group>')
      .option('--label <label>'),
  ).action(
    authed(async (api, id: string, o: Parameters<typeof limitsFrom>[0] & { label?: string }) =>
      api.enact(await api.inviteAgent(id, { ...limitsFrom(o), ...(o.label && { label: o.label }) })),
    ),
  );
  limitOptions(p.command('limits').description("change an agent's limits").argument('<agent>')).action(
    authed(async (api, agent: string, o: Parameters<typeof limitsFrom>[0]) =>
      api.enact(await api.changeLimits(agent, limitsFrom(o))),
    ),
  );
  p.command('emergency-withdraw')
    .description('revoke an agent and move every token it holds (venue positions redeemed first) to a wallet')
    .argument('<agent>')
    .option(
      '--destination <wallet>',
      "where the tokens go (default: the group's safe destination; another is a proposal, signed here)",
    )
    .action(
      authed(async (api, agent: string, o: { destination?: string }) =>
        api.enact(await api.emergencyWithdraw(agent, o.destination ? { destination: o.destination } : {})),
      ),
    );
  p.command('revoke')
    .description('revoke an agent: no further spending')
    .argument('<agent>')
    .action(authed(async (api, agent: string) => api.revokeAgent(agent)));
  p.command('rotate-key')
    .description(
      "replace an agent's API key: the old one dies at once, the new one is a proposal signed here; prints it",
    )
    .argument('<agent>')
    .action(authed(async (api, agent: string) => api.enact(await api.rotateKey(agent))));
  const auditors = p.command('auditors').description("wallets that may read a group's log, nothing else");
  auditors
    .command('list')
    .description("the group's auditors")
    .argument('<group>')
    .action(authed(async (api, id: string) => api.listAuditors(id)));
  auditors
    .command('grant')
    .description("give a wallet read-only access to the group's log")
    .argument('<group>')
    .argument('<wallet>')
    .action(
      authed(async (api, id: string, wallet: string) => api.enact(await api.grantAuditor(id, { wallet }))),
    );
  auditors
    .command('remove')
    .description("take an auditor's access away")
    .argument('<group>')
    .argument('<wallet>')
    .action(authed(async (api, id: string, wallet: string) => api.removeAuditor(id, { wallet })));
  webhookCommands(p, cli);
  approvalCommands(p, cli);
  governanceCommands(p, cli);
  const audit = p.command('audit').description('audit the log: its hash chains, and against the chain');
  reconcileCommand(audit, cli);
  verifyCommand(audit, cli);
  globalsAfterCommands(p);
  return p;
}

/**
 * The global options are read before the command; after it too (hidden in its help), unless the
 * command has an option of that name: `tokenops group show <group> --json` works, and in
 * `tokenops webhooks add <group> --url <receiver>` the --url is the receiver's.
 */
function globalsAfterCommands(p: Command): void {
  const leaves = (c: Command): Command[] => (c.commands.length ? c.commands.flatMap(leaves) : [c]);
  const mirrored = new Map<Command, Option[]>();
  for (const leaf of leaves(p)) {
    const copies = p.options
      .filter((o) => !leaf.options.some((own) => own.long === o.long))
      .map((o) => new Option(o.flags, o.description).hideHelp());
    for (const copy of copies) leaf.addOption(copy);
    mirrored.set(leaf, copies);
  }
  p.hook('preAction', (_p, leaf) => {
    for (const copy of mirrored.get(leaf) ?? []) {
      const key = copy.attributeName();
      if (leaf.getOptionValue(key) !== undefined) p.setOptionValue(key, leaf.getOptionValue(key));
    }
  });
}

/** What a run printed, and its exit code. */
export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI on `args` (without the node and script paths), writing to `io`; answers the exit code:
 * 0, 1 when a command failed or found something wrong, or commander's own (help, a usage error).
 */
export async function run(args: readonly string[], io: Io = processIo()): Promise<number> {
  const p = program(io);
  try {
    await p.parseAsync(args, { from: 'user' });
    return io.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    io.err.write(`tokenops: ${describeFailure(err, p.opts<Global>().url)}\n`);
    return 1;
  }
}

/** Runs the CLI in this process, keeping what it prints (as a shell would capture it). */
export async function runCaptured(args: readonly string[]): Promise<Outcome> {
  const lines: string[] = [];
  const err = new PassThrough();
  let stderr = '';
  err.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const io: Io = { out: (line) => lines.push(line), err, exitCode: 0 };
  const code = await run(args, io);
  return { code, stdout: lines.map((line) => `${line}\n`).join(''), stderr };
}
