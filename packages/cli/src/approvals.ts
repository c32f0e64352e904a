/**
 * `tokenops approvals`: spends held for a person (design.md "Approvals"). `policy` sets which spends of
 * a group wait (owner only); `list` and `show` read them; `approve` signs an approval's message with
 * the keypair file's wallet (ed25519) and sends the signature; `reject` refuses it. `tokenops policy
 * show` reads the policy in force; `tokenops policy preview` replays a proposed policy over the
 * group's spends of a window (nothing is written), guard rules (a JSON file, as `PUT .../guard` takes
 * them) and group limits included.
 */
import { readFileSync } from 'node:fs';
import bs58 from 'bs58';
import type { OperatorClient } from '@tokenops/client';
import type { Command } from 'commander';
import type { Cli } from './session';

type Approval = Awaited<ReturnType<OperatorClient['getApproval']>>;
type Status = 'pending' | 'approved' | 'rejected' | 'expired';

/** One line per approval: what it moves, to whom, its status and signatures, its expiry; who rejected it and why. */
export const approvalLines = ({ approvals }: { approvals: Approval[] }): string =>
  approvals.length === 0
    ? 'no approvals'
    : approvals
        .map(
          (a) =>
            `${a.approval_id}  ${a.status}  ${a.action} ${a.amount} (${a.value_in_base} in base) to ${a.counterparty}` +
            `  agent ${a.agent_wallet_pda}  signed ${a.approved_by.length}/${a.quorum}  expires ${a.expires_at}` +
            (a.status === 'rejected'
              ? `  rejected by ${a.rejected_by ?? 'the service'}${a.reason ? ` (${a.reason})` : ''}`
              : ''),
        )
        .join('\n');

type Preview = Awaited<ReturnType<OperatorClient['previewPolicy']>>;
type PreviewBody = NonNullable<Parameters<OperatorClient['previewPolicy']>[1]>;

/**
 * The counts, then one line per example whose verdict the proposal changes (with the guard's rules that
 * hold it or freeze its agent), then one per agent the guard would freeze.
 */
export const previewLines = (r: Preview): string =>
  [
    `${r.intents} spends from ${r.from} to ${r.to}: ${r.would_hold} would be held, ` +
      `${Object.values(r.would_block).reduce((a, b) => a + b, 0)} blocked` +
      Object.entries(r.would_block)
        .map(([code, n]) => `  ${code} ${n}`)
        .join(''),
    ...r.examples.map(
      (x) =>
        `${x.at}  ${x.action} ${x.amount} to ${x.counterparty}  agent ${x.agent_wallet_pda}: ${x.was} -> ${x.would}` +
        (x.held_by?.length ? ` (${x.held_by.join(', ')})` : ''),
    ),
    ...r.would_freeze.map((f) => `${f.at}  agent ${f.agent} would be frozen by ${f.rule}`),
  ].join('\n');

/** `--guard <file>`: the rules as `PUT .../guard` takes them, `{rules: [...]}` or the list alone. */
function guardFile(file: string): NonNullable<PreviewBody['guard']> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`--guard ${file}: not a JSON file (${err instanceof Error ? err.message : String(err)})`);
  }
  // The service checks the rules and names a bad field (/guard/rules/0/factor).
  return (Array.isArray(parsed) ? { rules: parsed } : parsed) as NonNullable<PreviewBody['guard']>;
}

/** `--group-daily` / `--group-hourly`: a limit, or `none` (no group limit in the preview). */
function groupLimitsOf(daily?: string, hourly?: string): PreviewBody['group_limits'] {
  if (hourly !== undefined && hourly !== 'none' && !/^[0-9]+$/.test(hourly))
    throw new Error(`--group-hourly must be a whole number or none, not ${hourly}`);
  return {
    ...(daily !== undefined && { daily_limit: daily === 'none' ? null : daily }),
    ...(hourly !== undefined && { hourly_tx_cap: hourly === 'none' ? null : Number(hourly) }),
  };
}

type PolicyInForce = Awaited<ReturnType<OperatorClient['getApprovalPolicy']>>;

/** What the policy in force holds, and who decides. */
export const policyLines = (p: PolicyInForce): string =>
  [
    p.threshold === null && !p.new_recipients
      ? 'nothing is held by the group (no threshold, no first-spend holds); an agent’s own approval threshold still holds'
      : `held: ${p.threshold === null ? 'no threshold' : `spends valued above ${p.threshold} in the base token`}` +
        (p.new_recipients ? ', and the first spend to each allow-list entry' : ''),
    `decided by ${p.quorum} of ${p.approvers.length} approver(s) within ${p.ttl_seconds} s: ${p.approvers.join(', ')}`,
  ].join('\n');

export function approvalCommands(p: Command, cli: Cli): void {
  const policy = p.command('policy').description('the approval policy in force, and trying one on the log');
  policy
    .command('show')
    .description("the group's approval policy in force: which spends wait for a person, who decides")
    .argument('<group>')
    .action(
      cli.authed(
        async (api, group: string) => api.getApprovalPolicy(group),
        (answer) => policyLines(answer),
      ),
    );
  policy
    .command('preview')
    .description("what a proposed policy would have done to the group's real spends (writes nothing)")
    .argument('<group>')
    .option('--per-tx <amount>', 'a per-transaction limit for every agent')
    .option('--daily <amount>', 'a daily limit for every agent')
    .option('--hourly <count>', 'an hourly cap for every agent', (v) => Number(v))
    .option('--approval-threshold <amount>', 'hold spends above this value ("none": no threshold)')
    .option('--new-recipients', 'hold the first spend to each allow-list entry')
    .option('--remove <address...>', 'take these addresses off the allow-list')
    .option(
      '--guard <file.json>',
      "guard rules in place of the group's: a JSON file {rules: [...]}, as PUT .../guard takes them",
    )
    .option('--group-daily <amount>', "a daily limit over the group's agents ('none': no group daily limit)")
    .option('--group-hourly <count>', "an hourly cap over the group's agents ('none': no group cap)")
    .option('--since <time>', 'the window starts here (ISO 8601; default 7 days ago)')
    .action(
      cli.authed(
        async (
          api,
          group: string,
          o: {
            perTx?: string;
            daily?: string;
            hourly?: number;
            approvalThreshold?: string;
            newRecipients?: boolean;
            remove?: string[];
            guard?: string;
            groupDaily?: string;
            groupHourly?: string;
            since?: string;
          },
        ) =>
          api.previewPolicy(group, {
            ...(o.perTx !== undefined && { per_tx_limit: o.perTx }),
            ...(o.daily !== undefined && { daily_limit: o.daily }),
            ...(o.hourly !== undefined && { hourly_tx_cap: o.hourly }),
            ...(o.approvalThreshold !== undefined && {
              approval_threshold: o.approvalThreshold === 'none' ? null : o.approvalThreshold,
            }),
            ...(o.newRecipients && { new_recipients: true }),
            ...(o.remove && { whitelist_remove: o.remove }),
            ...(o.guard !== undefined && { guard: guardFile(o.guard) }),
            ...((o.groupDaily !== undefined || o.groupHourly !== undefined) && {
              group_limits: groupLimitsOf(o.groupDaily, o.groupHourly),
            }),
            ...(o.since && { since: o.since }),
          }),
        (answer) => previewLines(answer),
      ),
    );

  const { authed } = cli;
  const approvals = p
    .command('approvals')
    .description('spends held for a person: the policy, approve, reject');
  approvals
    .command('policy')
    .description(
      'hold spends of a group above a threshold (or the first to each recipient) for m of n approvers',
    )
    .argument('<group>')
    .requiredOption(
      '--threshold <amount>',
      'value in the base token above which a spend is held; "none": no threshold',
    )
    .option('--approver <wallet...>', 'approver wallets (default: the owner alone)')
    .option('--quorum <m>', 'how many approvers must sign (default 1)', (v) => Number(v))
    .option('--ttl <seconds>', 'how long a held spend waits (default 86400)', (v) => Number(v))
    .option('--new-recipients', 'also hold the first spend to each allow-list entry')
    .action(
      authed(
        async (
          api,
          group: string,
          o: {
            threshold: string;
            approver?: string[];
            quorum?: number;
            ttl?: number;
            newRecipients?: boolean;
          },
        ) =>
          api.enact(
            await api.setApprovalPolicy(group, {
              threshold: o.threshold === 'none' ? null : o.threshold,
              ...(o.approver && { approvers: o.approver }),
              ...(o.quorum !== undefined && { quorum: o.quorum }),
              ...(o.ttl !== undefined && { ttl_seconds: o.ttl }),
              ...(o.newRecipients && { new_recipients: true }),
            }),
          ),
      ),
    );
  approvals
    .command('list')
    .description("a group's held spends, newest first")
    .argument('<group>')
    .option('--status <status>', 'pending, approved, rejected or expired')
    .action(
      authed(
        async (api, group: string, o: { status?: Status }) =>
          api.listApprovals(group, o.status ? { status: o.status } : {}),
        (answer) => approvalLines(answer),
      ),
    );
  approvals
    .command('show')
    .description('one held spend, with the message its approvers sign')
    .argument('<approval>')
    .action(authed(async (api, approval: string) => api.getApproval(approval)));
  approvals
    .command('approve')
    .description("sign the approval's message with your keypair and send the signature")
    .argument('<approval>')
    .action(
      authed(async (api, approval: string) => {
        const { message } = await api.getApproval(approval);
        const signature = bs58.encode(cli.wallet().sign(new TextEncoder().encode(message)));
        return api.approveSpend(approval, { signature });
      }),
    );
  approvals
    .command('reject')
    .description('refuse a held spend: nothing is sent, what it reserved is released')
    .argument('<approval>')
    .option('--reason <text>', 'why (recorded in the log)')
    .action(
      authed(async (api, approval: string, o: { reason?: string }) =>
        api.rejectSpend(approval, o.reason ? { reason: o.reason } : {}),
      ),
    );
}
