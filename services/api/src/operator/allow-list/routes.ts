/**
 * The allow-list of a group: an entry added (a recipient with its budget and lifetime, or a protocol)
 * or removed, each answered once the agent views include it.
 */
import {
  OPERATOR_ALLOW_LIST,
  addWhitelistEntry,
  removeWhitelistEntry,
  type WhitelistRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';
import { operatorCalls } from '../common';

export function allowListRoutes(deps: ApiDeps): Route[] {
  const rows = OPERATOR_ALLOW_LIST.operations;
  const { wallet, visible } = operatorCalls(deps);
  return [
    defineRoute(rows.addWhitelistEntry, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<WhitelistRequest>();
      reply(
        await visible(res, () =>
          addWhitelistEntry(deps.ctx, w, param('group'), {
            address: b.address,
            type: b.type,
            ...(b.label !== undefined && { label: b.label }),
            ...(b.approved_amount !== undefined && { approved_amount: b.approved_amount }),
            ...(b.ttl_seconds !== undefined && { ttl_seconds: b.ttl_seconds }),
          }),
        ),
      );
    }),
    defineRoute(rows.removeWhitelistEntry, async ({ req, res, param, reply }) => {
      const w = await wallet(req);
      reply(await visible(res, () => removeWhitelistEntry(deps.ctx, w, param('group'), param('entry'))));
    }),
  ];
}
