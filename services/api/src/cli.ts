/**
 * The operator CLI. Signs in with a keypair file (the Solana CLI's JSON format: 64 bytes, seed then
 * public key), then calls the operator surface. `--json` prints the service's answer as it is.
 */
import bs58 from 'bs58';
import { Command, Option } from 'commander';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { generateSigner, signerFromSeed, type Signer } from '@tokenops/shared';
import { webhookCommands } from './webhooks/cli';
import { reconcileCommand } from './audit/reconcile-cli';
import { verifyCommand } from './audit/verify-cli';

export interface Global {
  url: string;
  keypair: string;
  json?: boolean;
}

function loadKeypair(file: string): Signer {
  if (!existsSync(file))
    throw new Error(`no keypair file ${file} (create one with: tokenops keygen ${file})`);
  const bytes = JSON.parse(readFileSync(file, 'utf8')) as number[];
  if (!Array.isArray(bytes) || bytes.length !== 64)
    throw new Error(`${file} is not a keypair file (a JSON array of 64 numbers)`);
  const signer = signerFromSeed(new Uint8Array(bytes.slice(0, 32)));
  if (bs58.encode(new Uint8Array(bytes.slice(32))) !== signer.address)
    throw new Error(`${file}: the public key does not match the seed`);
  return signer;
}

/** Calls the service; an error answer throws, with its envelope (and details) in the message. */
export async function call(
  g: Global,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<Record<string, unknown>> {
  const url = `${g.url.replace(/\/$/, '')}/api/v1${path}`;
  const res = await fetch(url, {
    method,
    headers: {
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  }).catch((err: unknown) => {
    throw new Error(unreachable(g.url, err));
  });
  const answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const details = Array.isArray(answer.details)
      ? (answer.details as { path?: unknown; issue?: unknown }[])
          .map((d) => `${String(d.path ?? '')}: ${String(d.issue ?? '')}`)
          .join('; ')
      : '';
    throw new Error(
      `${res.status} ${String(answer.error ?? '')}: ${String(answer.message ?? res.statusText)}` +
        (details && ` (${details})`),
    );
  }
  return answer;
}

/** No answer at all: which URL was tried, why it failed, and how to point the CLI elsewhere. */
function unreachable(url: string, err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const why = cause instanceof Error ? cause.message || cause.name : String(cause);
  return (
    `cannot reach the service at ${url} (${why}). Is it running there? ` +
    'Point the CLI at it with --url <url> or the TOKENOPS_URL environment variable.'
  );
}

async function signIn(g: Global): Promise<string> {
  const wallet = loadKeypair(g.keypair);
  const challenge = await call(g, 'POST', '/orchestrator/auth/challenge', { wallet: wallet.address });
  const message = String(challenge.message);
  const signature = bs58.encode(wallet.sign(Buffer.from(message, 'utf8')));
  return String(
    (await call(g, 'POST', '/orchestrator/auth/token', { wallet: wallet.address, message, signature })).token,
  );
}

/** An answer for people: `key: value` lines, nested objects indented. */
export function plain(answer: unknown): string {
  const lines = (value: unknown, indent = ''): string[] =>
    value !== null && typeof value === 'object'
      ? Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
          v !== null && typeof v === 'object'
            ? [`${indent}${k}:`, ...lines(v, `${indent}  `)]
            : [`${indent}${k}: ${String(v)}`],
        )
      : [`${indent}${String(value)}`];
  return lines(answer).join('\n');
}

/** Prints an answer: as JSON with --json, else as `render` (by default `plain`) shows it. */
function print(g: Global, answer: unknown, render: (answer: never) => string = plain): void {
  console.log(g.json ? JSON.stringify(answer, null, 2) : render(answer as never));
}

/** What a command group kept in a file of its own needs of the CLI. */
export interface Cli {
  /** The global options (--url, --keypair, --json), once parsed. */
  g(): Global;
  /** Calls the service (see `call`). */
  call: typeof call;
  /** Signs in with the keypair file (an owner's or an auditor's) and answers the token. */
  signIn(): Promise<string>;
  /**
   * An action that signs in first, calls `fn` with the operator token and the action's arguments,
   * then prints what it answers (`render`, given the same arguments, shows it to people; --json
   * prints it as it is).
   */
  authed<A extends unknown[], R>(
    fn: (token: string, ...args: A) => Promise<R>,
    render?: (answer: R, ...args: A) => string,
  ): (...args: A) => Promise<void>;
}

interface GroupList {
  groups: {
    group_config_pda: string;
    created_at: string;
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
            `${x.group_config_pda}  created ${x.created_at}  agents ${x.agents}  allow-list ${x.whitelist_entries}` +
            `  per-tx ${x.default_limits.per_tx_limit} daily ${x.default_limits.daily_limit} hourly ${x.default_limits.hourly_tx_cap}`,
        )
        .join('\n');

const limitOptions = (c: Command) =>
  c
    .option('--per-tx <amount>', 'largest single spend (base token)')
    .option('--daily <amount>', 'spend ceiling over 24 hours')
    .option('--hourly <count>', 'operations allowed per 60 minutes', (v) => Number(v));
const limitsFrom = (o: { perTx?: string; daily?: string; hourly?: number }) => ({
  ...(o.perTx !== undefined && { per_tx_limit: o.perTx }),
  ...(o.daily !== undefined && { daily_limit: o.daily }),
  ...(o.hourly !== undefined && { hourly_tx_cap: o.hourly }),
});

export function program(): Command {
  const p = new Command('tokenops')
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
  const authed: Cli['authed'] =
    (fn, render) =>
    async (...args) =>
      print(g(), await fn(await signIn(g()), ...args), render && ((answer) => render(answer, ...args)));

  p.command('keygen')
    .description('create a new keypair file')
    .argument('<file>')
    .action((file: string) => {
      if (existsSync(file)) throw new Error(`${file} exists; not overwriting a key`);
      const s = generateSigner();
      writeFileSync(file, JSON.stringify([...s.seed, ...s.publicKey]), { mode: 0o600 });
      print(g(), { wallet: s.address, keypair: file });
    });
  p.command('tokens')
    .description('list the token registry')
    .action(async () => print(g(), await call(g(), 'GET', '/tokens')));
  p.command('venues')
    .description('list the lending venues (allow-list one with: whitelist add <group> <program> --type 2)')
    .action(async () => print(g(), await call(g(), 'GET', '/venues')));
  p.command('pools')
    .description("the swap aggregator's local pools: pairs, reserves, fee")
    .action(async () => print(g(), await call(g(), 'GET', '/pools')));
  p.command('airdrop')
    .description('local chain only: pay an address as an outside party (signs in: operators only)')
    .argument('<to>')
    .argument('<amount>')
    .option('--mint <mint>', 'token (default: the base token)')
    .action(
      authed(async (token, to: string, amount: string, o: { mint?: string }) =>
        call(g(), 'POST', '/dev/airdrop', { to, amount, ...(o.mint && { mint: o.mint }) }, token),
      ),
    );

  const group = p.command('group').description('groups you own');
  limitOptions(
    group.command('create').description('create a group (its defaults apply to new agents)'),
  ).action(
    authed(async (token, o: Parameters<typeof limitsFrom>[0]) =>
      call(g(), 'POST', '/orchestrator/groups', limitsFrom(o), token),
    ),
  );
  group
    .command('list')
    .description('the groups you own: id, creation time, agents, allow-list entries, default limits')
    .action(
      authed(
        async (token) => call(g(), 'GET', '/orchestrator/groups', undefined, token),
        (answer) => groupLines(answer as unknown as GroupList),
      ),
    );
  group
    .command('show')
    .description("a group: defaults, agents (status, limits), allow-list (each budget's use)")
    .argument('<group>')
    .action(
      authed(async (token, id: string) => call(g(), 'GET', `/orchestrator/groups/${id}`, undefined, token)),
    );

  const wl = p.command('whitelist').description('allow-list entries of a group');
  wl.command('add')
    .description('allow an address: type 1 (recipient, needs --amount and --ttl) or 2 (protocol)')
    .argument('<group>')
    .argument('<address>')
    .requiredOption('--type <type>', '1 or 2', (v) => Number(v))
    .option('--amount <amount>', 'approved budget (type 1)')
    .option('--ttl <seconds>', 'lifetime (type 1)', (v) => Number(v))
    .option('--label <label>')
    .action(
      authed(
        async (
          token,
          id: string,
          address: string,
          o: { type: number; amount?: string; ttl?: number; label?: string },
        ) =>
          call(
            g(),
            'POST',
            `/orchestrator/groups/${id}/whitelist`,
            {
              address,
              type: o.type,
              ...(o.amount && { approved_amount: o.amount }),
              ...(o.ttl && { ttl_seconds: o.ttl }),
              ...(o.label && { label: o.label }),
            },
            token,
          ),
      ),
    );
  wl.command('remove')
    .description('remove an entry')
    .argument('<group>')
    .argument('<entry>')
    .action(
      authed(async (token, id: string, entry: string) =>
        call(g(), 'DELETE', `/orchestrator/groups/${id}/whitelist/${entry}`, undefined, token),
      ),
    );

  limitOptions(
    p
      .command('invite')
      .description('invite one agent: prints its one-time invitation code')
      .argument('<group>')
      .option('--label <label>'),
  ).action(
    authed(async (token, id: string, o: Parameters<typeof limitsFrom>[0] & { label?: string }) =>
      call(
        g(),
        'POST',
        `/orchestrator/groups/${id}/invitations`,
        { ...limitsFrom(o), ...(o.label && { label: o.label }) },
        token,
      ),
    ),
  );
  limitOptions(p.command('limits').description("change an agent's limits").argument('<agent>')).action(
    authed(async (token, agent: string, o: Parameters<typeof limitsFrom>[0]) =>
      call(g(), 'PATCH', `/orchestrator/agents/${agent}/limits`, limitsFrom(o), token),
    ),
  );
  p.command('emergency-withdraw')
    .description('revoke an agent and move every token it holds (venue positions redeemed first) to a wallet')
    .argument('<agent>')
    .option('--destination <wallet>', "where the tokens go (default: the operator's own wallet)")
    .action(
      authed(async (token, agent: string, o: { destination?: string }) =>
        call(
          g(),
          'POST',
          `/orchestrator/agents/${agent}/emergency-withdraw`,
          o.destination ? { destination: o.destination } : {},
          token,
        ),
      ),
    );
  p.command('revoke')
    .description('revoke an agent: no further spending')
    .argument('<agent>')
    .action(
      authed(async (token, agent: string) =>
        call(g(), 'POST', `/orchestrator/agents/${agent}/revoke`, {}, token),
      ),
    );
  p.command('rotate-key')
    .description("replace an agent's API key (the old one dies at once); prints the new key")
    .argument('<agent>')
    .action(
      authed(async (token, agent: string) =>
        call(g(), 'POST', `/orchestrator/agents/${agent}/rotate-key`, {}, token),
      ),
    );
  const cli: Cli = { g, call, authed, signIn: () => signIn(g()) };
  webhookCommands(p, cli);
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

if (require.main === module) {
  program()
    .parseAsync(process.argv)
    .catch((err: unknown) => {
      console.error(`tokenops: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    });
}
