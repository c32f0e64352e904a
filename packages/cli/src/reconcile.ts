/**
 * `tokenops audit reconcile --group <group> [--from <time>] [--to <time>]`: asks the service to
 * reconcile the group's log with the chain (GET /orchestrator/groups/{group}/reconciliation), prints
 * each discrepancy, and exits with code 1 when there is one (0 when the log and the chain agree).
 */
import type { OperatorClient } from '@tokenops/client';
import type { Command } from 'commander';
import type { Cli } from './session';

/** The reconciliation's answer, as the operator document types it. */
type Reconciliation = Awaited<ReturnType<OperatorClient['reconcileGroup']>>;

/** One line per discrepancy (its kind, then what it says), then a summary line. */
export function renderReconciliation(r: Reconciliation): string {
  const window = r.from || r.to ? ` from ${r.from ?? 'the start'} to ${r.to ?? 'now'}` : '';
  const summary =
    `${r.discrepancies.length === 0 ? 'clean' : `${r.discrepancies.length} discrepancies`}: ` +
    `group ${r.group_id}${window}, ${r.agents} agents, ${r.transactions} transactions on the chain`;
  return [...r.discrepancies.map((d) => `${d.kind}: ${d.message}`), summary].join('\n');
}

export function reconcileCommand(audit: Command, cli: Cli): void {
  audit
    .command('reconcile')
    .description(
      "check the log against the chain: every confirmed intent's transaction, every movement out of an agent's wallet, every balance (exit code 1 on any discrepancy)",
    )
    .requiredOption('--group <group>', 'the group')
    .option('--from <time>', 'only intents and movements from this time (ISO 8601)')
    .option('--to <time>', 'only intents and movements up to this time (ISO 8601)')
    .action(
      cli.authed(
        async (api, o: { group: string; from?: string; to?: string }) => {
          const answer = await api.reconcileGroup(o.group, {
            ...(o.from && { from: o.from }),
            ...(o.to && { to: o.to }),
          });
          if (answer.discrepancies.length > 0) cli.io.exitCode = 1;
          return answer;
        },
        (answer) => renderReconciliation(answer),
      ),
    );
}
