/**
 * The payment watcher as every process runs it (the executor under its lease on the server topology,
 * the embedded default in its process): outsiders' payments into agent wallets recorded as
 * `payment.received` (application/payments.ts), each one logged, a pass that could not read some
 * agents logged as a warning (the next pass tries them again).
 */
import { startPaymentWatcher, type Context, type PaymentWatcher } from '@tokenops/shared';
import { type PaymentSource } from '@tokenops/shared/adapters';
import { type Logger } from '@tokenops/shared/process';

/** The executor's defaults (PAYMENT_WATCH_INTERVAL_MS, PAYMENT_SWEEP_INTERVAL_MS). */

export function watchPayments(
  ctx: Pick<Context, 'store' | 'chain' | 'wallets' | 'now'>,
  source: PaymentSource,
  logger: Logger,
  every: { intervalMs: number; sweepMs: number },
): PaymentWatcher {
  return startPaymentWatcher(ctx, source, {
    ...every,
    onPayment: (p) => logger.info('payment received', { agent: p.agent_id, tx: p.tx_signature }),
    onPass: (failures) => {
      if (failures.length > 0)
        logger.warn('payments not read this pass; the next pass tries again', {
          agents: failures.length,
          error: String(failures[0]!.error),
        });
    },
  });
}
