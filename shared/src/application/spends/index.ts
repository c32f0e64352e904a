/** Every spend operation, by action: the one place the API and the executor look them up. */
import type { Action } from '../../domain/events';
import type { SpendKind } from './kind';
import { depositKind } from './deposit';
import { swapKind } from './swap';
import { transferDryRun, transferKind } from './transfer';
import { withdrawKind } from './withdraw';

export const SPEND_KINDS: { readonly [A in Action]?: SpendKind<never, A> } = {
  transfer: transferKind,
  swap: swapKind,
  deposit: depositKind,
  withdraw: withdrawKind,
};

export { depositKind, swapKind, transferDryRun, transferKind, withdrawKind };
export { spend, simulate, dryRun, type Answer, type DryRunAsk } from './pipeline';
export { BuildRefused, type Ask, type Built, type IntentOf, type SpendKind } from './kind';
export { quoteOrUnavailable } from './quotes';
export { recordRefusedKey } from './refused';
export { valueInBase } from './valuation';
