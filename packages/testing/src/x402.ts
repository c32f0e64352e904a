/**
 * x402 for tests: the loopback facilitator and paid resource of @tokenops/x402-local, with what only
 * tests need: a route whose first paid request has its connection cut, and the signed payments each
 * route received, which a test can land later as a resource that kept one would (`landLater`).
 */
import type express from 'express';
import { decodePaymentSignatureHeader } from '@x402/core/http';
import {
  startPaidResource as startLocalResource,
  type Facilitator,
  type PaidResource,
  type PaidRoute as LocalRoute,
  type TlsMaterial,
} from '@tokenops/x402-local';

export { DEVNET, MAINNET, startFacilitator, type Facilitator, type PaidResource } from '@tokenops/x402-local';

export interface PaidRoute extends LocalRoute {
  /**
   * The first paid request's connection is cut: `before-settle`, before the payment is looked at (it
   * never reaches the facilitator); `after-settle`, once the facilitator settled it, instead of the
   * answer (a payer sees its request fail although it paid).
   */
  drop?: 'before-settle' | 'after-settle';
}

/**
 * The local paid resource, its routes' `drop` applied; `paid` counts the paid requests that arrived, by
 * route, and `payments` keeps their PAYMENT-SIGNATURE values.
 */
export async function startPaidResource(options: {
  facilitator: Facilitator;
  routes: Record<string, PaidRoute>;
  tls: TlsMaterial;
  host?: string;
  port?: number;
}): Promise<PaidResource & { paid: Record<string, number>; payments: Record<string, string[]> }> {
  const paid: Record<string, number> = {};
  const payments: Record<string, string[]> = {};
  const arrived: express.RequestHandler = (req, _res, next) => {
    const name = req.path.slice(1);
    const payment = req.header('payment-signature');
    if (payment) {
      paid[name] = (paid[name] ?? 0) + 1;
      (payments[name] ??= []).push(payment);
    }
    next();
  };
  const resource = await startLocalResource({ ...options, before: [arrived, dropFirstPaid(options.routes)] });
  return { ...resource, paid, payments };
}

/**
 * Lands a signed payment a resource received and did not settle, through the facilitator's /settle
 * (as a resource that kept it would, later): the settlement's answer.
 */
export async function landLater(
  facilitator: Facilitator,
  paymentSignature: string,
): Promise<{ success: boolean; transaction: string; errorReason?: string }> {
  const paymentPayload = decodePaymentSignatureHeader(paymentSignature);
  const response = await fetch(`${facilitator.url}/settle`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ paymentPayload, paymentRequirements: paymentPayload.accepted }),
  });
  return (await response.json()) as { success: boolean; transaction: string; errorReason?: string };
}

/** Cuts the connection of the first paid request of each route that drops (see PaidRoute.drop). */
function dropFirstPaid(routes: Record<string, PaidRoute>): express.RequestHandler {
  const dropped = new Set<string>();
  return (req, res, next) => {
    const name = req.path.slice(1);
    const drop = routes[name]?.drop;
    if (!drop || !req.header('payment-signature') || dropped.has(name)) return next();
    dropped.add(name);
    if (drop === 'before-settle') return req.socket.destroy();
    const end = res.end.bind(res);
    res.end = ((...args: unknown[]) => {
      if (res.getHeader('payment-response')) return req.socket.destroy();
      return (end as (...a: unknown[]) => express.Response)(...args);
    }) as typeof res.end;
    next();
  };
}
