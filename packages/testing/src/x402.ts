/**
 * x402 for tests: the loopback facilitator and paid resource of @tokenops/x402-local, with what only
 * tests need: a route whose first paid request has its connection cut.
 */
import type express from 'express';
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

/** The local paid resource, its routes' `drop` applied; `paid` counts the paid requests that arrived, by route. */
export async function startPaidResource(options: {
  facilitator: Facilitator;
  routes: Record<string, PaidRoute>;
  tls: TlsMaterial;
  host?: string;
}): Promise<PaidResource & { paid: Record<string, number> }> {
  const paid: Record<string, number> = {};
  const arrived: express.RequestHandler = (req, _res, next) => {
    const name = req.path.slice(1);
    if (req.header('payment-signature')) paid[name] = (paid[name] ?? 0) + 1;
    next();
  };
  const resource = await startLocalResource({ ...options, before: [arrived, dropFirstPaid(options.routes)] });
  return { ...resource, paid };
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
