/** Every spend operation, by action: the one place the API and the executor look them up. */
import type { Action, IntentData } from '../../domain/events';
import type { PayerContext, SpendKind } from './kind';
import { depositKind } from './deposit';
import { swapKind } from './swap';
import { transferDryRun, transferKind } from './transfer';
import { withdrawKind } from './withdraw';
import { isX402, x402Kind } from './x402';

export const SPEND_KINDS: { readonly [A in Action]?: SpendKind<never, A> } = {
  transfer: transferKind,
  swap: swapKind,
  deposit: depositKind,
  withdraw: withdrawKind,
};

/** The kind that executes an accepted intent; its caller gives the widest context a kind needs (the payer's). */
export const kindOf = (
  intent: IntentData,
): SpendKind<never, IntentData['action'], PayerContext> | undefined =>
  (isX402(intent) ? x402Kind : SPEND_KINDS[intent.action]) as
    SpendKind<never, IntentData['action'], PayerContext> | undefined;

export { depositKind, isX402, swapKind, transferDryRun, transferKind, withdrawKind, x402Kind };
export { spend, simulate, dryRun, type Answer, type DryRunAsk } from './pipeline';
export {
  BuildRefused,
  PaymentPending,
  type Ask,
  type Built,
  type IntentOf,
  type PayerContext,
  type SpendContext,
  type SpendKind,
} from './kind';
export { quoteOrUnavailable } from './quotes';
export { recordRefusedKey } from './refused';
export { valueInBase } from './valuation';
