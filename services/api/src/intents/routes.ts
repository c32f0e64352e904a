import {
  AGENT_INTENTS,
  IdempotencyKey,
  depositKind,
  idempotencyKeyOf,
  simulate,
  spend,
  swapKind,
  transferDryRun,
  transferKind,
  validationError,
  withdrawKind,
  x402Kind,
  type SimulateRequest,
  type SpendKind,
} from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { authenticateAgent, recordingRefusedKeys } from '../http/auth';
import { defineRoute, type Route } from '../http/operations';

function headerKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length < IdempotencyKey.minLength || value.length > IdempotencyKey.maxLength) {
    throw validationError([{ path: '', issue: 'the idempotency-key header must be 1 to 255 characters' }]);
  }
  return value;
}

/**
 * POST /transfer, /swap, /deposit, /withdraw, /x402/pay (each a spend kind on the one pipeline) and
 * /intents/simulate.
 */
export function intentRoutes(deps: ApiDeps): Route[] {
  const rows = AGENT_INTENTS.operations;
  const spends = [
    [rows.transfer, transferKind],
    [rows.swap, swapKind],
    [rows.deposit, depositKind],
    [rows.withdraw, withdrawKind],
    [rows.payX402, x402Kind],
  ] as const;
  return [
    ...spends.map(([row, k]) => {
      const kind = k as SpendKind<{ idempotency_key: string }>;
      return defineRoute(row, ({ req, body, reply }) =>
        recordingRefusedKeys(req, deps, kind.action, async () => {
          const { caller } = await authenticateAgent(req, deps);
          const b = body<{ idempotency_key: string }>();
          idempotencyKeyOf(headerKey(req.header('idempotency-key')), b.idempotency_key);
          const answer = await spend(deps.ctx, deps.waiter, caller, kind, b);
          reply(answer.body, answer.status);
        }),
      );
    }),
    defineRoute(rows.simulateTransfer, async ({ req, body, reply }) => {
      const { caller } = await authenticateAgent(req, deps);
      const b = body<SimulateRequest>();
      reply(await simulate(deps.ctx, caller, (group) => transferDryRun(deps.ctx, b, group)));
    }),
  ];
}
