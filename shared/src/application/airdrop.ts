/**
 * The local chain's airdrop: an outside party pays an address, for demos and tests (an operator's
 * call; the API checks that the wallet may create groups).
 */
import { checkRecipient, resolveToken } from '../domain/tokens';
import { amountText, parseAmount, toBaseUnits } from '../money';
import { ServiceError } from '../errors';
import { ChainFailure } from '../chain/port';
import { isLocalChain, type Context } from './context';
import { newId } from './credentials';
import { PaymentLog } from './payments';

const U64_MAX = 2n ** 64n - 1n;
const chainText = (failure: ChainFailure): string => [failure.error, ...failure.logs].join('\n');

/**
 * Local chain only: an outside party pays `to`. When `to` is a wallet in custody (an agent, invited or
 * registered), the payment is recorded in `payments-<address>` (`payment.received`), which balances
 * and webhooks follow; a separate stream, so a payment before registration does not touch the
 * agent's own. Once: the payment watcher of the server topology sees the same mint and records it
 * under the same id (payments.ts).
 */
export async function airdrop(ctx: Context, input: { to: string; mint?: string; amount: unknown }) {
  const chain = ctx.chain;
  if (!isLocalChain(chain)) throw new ServiceError('not_found', 'Airdrops exist on the local chain only.');
  checkRecipient(input.to);
  const base = chain.tokens.find((t) => t.symbol === ctx.settings.baseSymbol)!;
  const token = resolveToken(chain.tokens, input.mint, base.mint);
  if (!chain.mintable(token.mint)) {
    throw new ServiceError(
      'validation_error',
      `${token.symbol} is a lending venue receipt token: only a deposit mints it.`,
      [{ path: '/mint', issue: 'a receipt token cannot be airdropped' }],
    );
  }
  const amount = parseAmount(input.amount);
  if (amount.lte(0)) throw new ServiceError('invalid_amount', 'The amount must be more than zero.');
  const units = toBaseUnits(amount, token.decimals);
  const tooMuch = () =>
    new ServiceError(
      'invalid_amount',
      `The amount would take ${token.symbol} past the largest supply a token holds (2^64 - 1 base units).`,
    );
  if (units > U64_MAX) throw tooMuch();
  let signature: string;
  try {
    signature = await chain.mintTo(input.to, token.mint, units, `airdrop:${newId()}`);
  } catch (err) {
    // The token program refuses a supply (or a balance) past u64: TokenError::Overflow, 0xe.
    if (err instanceof ChainFailure && /custom program error: 0xe\b|overflow/i.test(chainText(err)))
      throw tooMuch();
    throw err;
  }
  if (await ctx.wallets.inCustody(input.to)) {
    // The same id as the payment watcher's (payments.ts): seen by both, it is recorded once.
    await new PaymentLog(ctx.store).record({
      agent_id: input.to,
      mint: token.mint,
      amount: amountText(amount),
      from: 'airdrop',
      tx_signature: signature,
      at: ctx.now(),
    });
  }
  return {
    tx_signature: signature,
    to: input.to,
    mint: token.mint,
    symbol: token.symbol,
    amount: Number(amount.toFixed()),
  };
}
