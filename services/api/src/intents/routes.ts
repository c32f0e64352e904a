import {
  IdempotencyKey,
  SPEND_OPERATIONS,
  idempotencyKeyOf,
  simulate,
  spend,
  transferDryRun,
  validationError,
  type SimulateRequest,
  type SpendKind,
} from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { authenticateAgent, recordingRefusedKeys } from '../http/auth';
import type { Call, Handler } from '../http/operations';

function headerKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length < IdempotencyKey.minLength || value.length > IdempotencyKey.maxLength) {
    throw validationError([{ path: '', issue: 'the idempotency-key header must be 1 to 255 characters' }]);
  }
  return value;
}

/**
 * POST /transfer, /swap, /deposit, /withdraw, /x402/pay (each a spend kind on the one pipeline, by its
 * operation) and /intents/simulate.
 */
export function intentHandlers(deps: ApiDeps) {
  const spends = (SPEND_OPERATIONS as SpendKind<{ idempotency_key: string }>[]).map((kind) => [
    kind.operationId ?? kind.action,
    ({ req, body, reply }: Call) =>
      recordingRefusedKeys(req, deps, kind.action, async () => {
        const { caller } = await authenticateAgent(req, deps);
        const b = body<{ idempotency_key: string }>();
        idempotencyKeyOf(headerKey(req.header('idempotency-key')), b.idempotency_key);
        const answer = await spend(deps.ctx, deps.waiter, caller, kind, b);
        reply(answer.body, answer.status);
      }),
  ]);
  return {
    ...(Object.fromEntries(spends) as Record<string, Handler>),
    simulateTransfer: async ({ req, body, reply }: Call) => {
      const { caller } = await authenticateAgent(req, deps);
      const b = body<SimulateRequest>();
      reply(await simulate(deps.ctx, caller, (group) => transferDryRun(deps.ctx, b, group)));
    },
  } satisfies Record<string, Handler>;
}
