/**
 * `tokenops freeze` / `unfreeze` / `proposals`: the kill switch and the proposals of docs/governance.md.
 * A freeze is at once. Lifting one is a proposal, which `unfreeze` signs with the keypair file's wallet
 * in the same command (so one operator, at the default quorum of 1, unfreezes in one command);
 * `--no-sign` only proposes. `proposals` lists, shows, signs and cancels them.
 */
import bs58 from 'bs58';
import type { OperatorClient } from '@tokenops/client';
import type { Command } from 'commander';
import type { Cli } from './session';

type Proposal = Awaited<ReturnType<OperatorClient['getProposal']>>;
type Status = 'pending' | 'ready' | 'executed' | 'cancelled' | 'expired' | 'failed';
type Frozen = { frozen: { by: string; reason: string | null; at: string } | null; failed_intents: number };

/** What a freeze did: who, why, since when, and what failed. */
export const frozenLine = (what: string, f: Frozen): string =>
  `${what} frozen by ${f.frozen?.by} at ${f.frozen?.at}${f.frozen?.reason ? ` (${f.frozen.reason})` : ''}: every spend is refused; ` +
  `${f.failed_intents} accepted intent(s) not yet submitted failed`;

/** One line per proposal: id, status, action, signatures of the quorum, expiry; why it ended, if it did. */
export const proposalLines = ({ proposals }: { proposals: Proposal[] }): string =>
  proposals.length === 0 ? 'no proposals' : proposals.map(proposalLine).join('\n');

export const proposalLine = (p: Proposal): string =>
  `${p.proposal_id}  ${p.status}  ${p.action} ${JSON.stringify(p.params)}` +
  `  signed ${p.signatures.length}/${p.signatures_required}  expires ${p.expires_at}` +
  (p.reason ? `  (${p.reason})` : '');

export function governanceCommands(p: Command, cli: Cli): void {
  const { authed } = cli;
  /** Signs a proposal's message with the keypair file's wallet and sends the signature. */
  const sign = (api: OperatorClient, proposal: Proposal) =>
    api.signProposal(proposal.proposal_id, {
      signature: bs58.encode(cli.wallet().sign(new TextEncoder().encode(proposal.message))),
    });

  const freeze = p.command('freeze').description('the kill switch: every spend refused at once (any admin)');
  freeze
    .command('agent')
    .description('freeze an agent: its spends are refused (agent_frozen); held spends are rejected')
    .argument('<agent>')
    .option('--reason <text>', 'why (shown to the agent in every refusal, kept in the log)')
    .action(
      authed(
        async (api, agent: string, o: { reason?: string }) =>
          api.freezeAgent(agent, o.reason ? { reason: o.reason } : {}),
        (f) => frozenLine(`agent ${f.agent_wallet_pda}`, f),
      ),
    );
  freeze
    .command('group')
    .description("freeze a group: every agent's spends are refused (group_frozen)")
    .argument('<group>')
    .option('--reason <text>', 'why (shown to the agents in every refusal, kept in the log)')
    .action(
      authed(
        async (api, group: string, o: { reason?: string }) =>
          api.freezeGroup(group, o.reason ? { reason: o.reason } : {}),
        (f) => frozenLine(`group ${f.group_config_pda}`, f),
      ),
    );

  const unfreeze = p
    .command('unfreeze')
    .description('lift a freeze: a proposal, signed here with your keypair (--no-sign: only propose)');
  for (const [what, propose] of [
    ['agent', (api: OperatorClient, id: string) => api.unfreezeAgent(id)],
    ['group', (api: OperatorClient, id: string) => api.unfreezeGroup(id)],
  ] as const) {
    unfreeze
      .command(what)
      .description(`propose to lift the ${what}'s freeze, and sign the proposal`)
      .argument(`<${what}>`)
      .option('--no-sign', 'only propose: the admins sign it with `tokenops proposals sign`')
      .action(
        authed(
          async (api, id: string, o: { sign: boolean }) => {
            const proposal = await propose(api, id);
            return o.sign ? sign(api, proposal) : proposal;
          },
          (answer) => proposalLine(answer),
        ),
      );
  }

  const members = p.command('members').description("a group's team: members and their roles");
  members
    .command('list')
    .description("the group's members and their roles")
    .argument('<group>')
    .action(
      authed(
        async (api, group: string) => api.listMembers(group),
        ({ members: list }) => list.map((m) => `${m.wallet}  ${m.role}`).join('\n'),
      ),
    );
  members
    .command('add')
    .description('add a member, or give one another role (a proposal, signed here with your keypair)')
    .argument('<group>')
    .argument('<wallet>')
    .requiredOption('--role <role>', 'admin, approver or viewer')
    .action(
      authed(async (api, group: string, wallet: string, o: { role: 'admin' | 'approver' | 'viewer' }) =>
        api.enact(await api.addMember(group, { wallet, role: o.role })),
      ),
    );
  members
    .command('remove')
    .description('remove a member (a proposal, signed here with your keypair)')
    .argument('<group>')
    .argument('<wallet>')
    .action(
      authed(async (api, group: string, wallet: string) => api.enact(await api.removeMember(group, wallet))),
    );

  const governance = p
    .command('governance')
    .description("a group's governance policy: quorum, delay, safe destination");
  governance
    .command('show')
    .description('the governance policy in force')
    .argument('<group>')
    .action(authed(async (api, group: string) => api.getGovernance(group)));
  governance
    .command('set')
    .description('propose a governance policy (signed here with your keypair); what is left out stays')
    .argument('<group>')
    .option('--quorum <n>', 'distinct admins a widening change needs', (v) => Number(v))
    .option('--delay <seconds>', 'how long a proposal with its quorum waits', (v) => Number(v))
    .option('--safe-destination <wallet>', 'where an emergency withdrawal goes by default')
    .action(
      authed(async (api, group: string, o: { quorum?: number; delay?: number; safeDestination?: string }) =>
        api.enact(
          await api.setGovernance(group, {
            ...(o.quorum !== undefined && { quorum: o.quorum }),
            ...(o.delay !== undefined && { delay_seconds: o.delay }),
            ...(o.safeDestination !== undefined && { safe_destination: o.safeDestination }),
          }),
        ),
      ),
    );

  const proposals = p
    .command('proposals')
    .description("a group's governance proposals: list, show, sign, cancel");
  proposals
    .command('list')
    .description("a group's proposals, newest first")
    .argument('<group>')
    .option('--status <status>', 'pending, ready, executed, cancelled, expired or failed')
    .action(
      authed(
        async (api, group: string, o: { status?: Status }) =>
          api.listProposals(group, o.status ? { status: o.status } : {}),
        (answer) => proposalLines(answer),
      ),
    );
  proposals
    .command('show')
    .description('one proposal, with the message its admins sign')
    .argument('<proposal>')
    .action(authed(async (api, proposal: string) => api.getProposal(proposal)));
  proposals
    .command('sign')
    .description(
      "sign the proposal's message with your keypair; the signature that makes the quorum executes it",
    )
    .argument('<proposal>')
    .action(
      authed(
        async (api, proposal: string) => sign(api, await api.getProposal(proposal)),
        (answer) => proposalLine(answer),
      ),
    );
  proposals
    .command('cancel')
    .description('cancel a pending or ready proposal: nothing changes')
    .argument('<proposal>')
    .option('--reason <text>', 'why (recorded in the log)')
    .action(
      authed(
        async (api, proposal: string, o: { reason?: string }) =>
          api.cancelProposal(proposal, o.reason ? { reason: o.reason } : {}),
        (answer) => proposalLine(answer),
      ),
    );
  proposals
    .command('secret')
    .description(
      'the secret a proposal made (an invitation code, a key, a signing secret) when the service executed it after its delay: for its proposer, once',
    )
    .argument('<proposal>')
    .action(authed(async (api, proposal: string) => api.getProposalSecret(proposal)));
}
