/**
 * What a chain failure means for the caller. The executor runs the balance precheck before
 * submitting, and maps what the Solana runtime reports to the contract's codes.
 */
import type { Amount } from '../money';
import { ServiceError, type ErrorCode } from '../errors';

/** Before submitting: the paying token account must exist and hold the amount. */
export function checkFunds(account: { exists: boolean; balance: Amount }, amount: Amount): void {
  if (!account.exists)
    throw new ServiceError('account_not_initialized', 'The agent has no token account for this mint yet.');
  if (account.balance.lt(amount)) {
    throw new ServiceError(
      'insufficient_balance',
      `The balance ${account.balance.toFixed()} is below ${amount.toFixed()}.`,
    );
  }
}

/**
 * Maps a failed transaction's program logs or error to a code. SPL Token reports its errors as
 * custom program errors: 0x1 insufficient funds, 0x3 mint mismatch, 0x4 owner mismatch; a missing
 * account shows as AccountNotFound / InvalidAccountData.
 */
export function classifyChainFailure(
  failure: { logs?: readonly string[]; error?: string },
  role?: 'fee',
): ErrorCode {
  const text = [...(failure.logs ?? []), failure.error ?? ''].join('\n');
  if (/insufficient funds|custom program error: 0x1\b/i.test(text)) return 'insufficient_balance';
  if (
    /AccountNotFound|account not found|could not find account|InvalidAccountData|UninitializedAccount/i.test(
      text,
    )
  ) {
    return 'account_not_initialized';
  }
  if (/custom program error: 0x[34]\b|owner does not match|mint mismatch/i.test(text)) {
    return role === 'fee' ? 'invalid_fee_account' : 'invalid_token_account';
  }
  return 'internal_error';
}
