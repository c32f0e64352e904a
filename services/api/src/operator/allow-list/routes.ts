/**
 * The allow-list of a group: an entry proposed (a recipient with its budget and lifetime, or a
 * protocol: `202`, made once the admins signed it) or removed at once, answered once the agent views
 * include it.
 */
import { OPERATOR_ALLOW_LIST, propose, removeWhitelistEntry, type WhitelistRequest } from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';
import { operatorCalls } from '../common';

export function allowListRoutes(deps: ApiDeps): Route[] {
  const rows = OPERATOR_ALLOW_LIST.operations;
  const { wallet, visible } = operatorCalls(deps);
  return [
    defineRoute(rows.addWhitelistEntry, async ({ req, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<WhitelistRequest>();
      reply(
        await propose(deps.ctx, w, param('group'), 'allow_list.add', {
          address: b.address,
          type: b.type,
          ...(b.label !== undefined && { label: b.label }),
          ...(b.approved_amount !== undefined && { approved_amount: b.approved_amount }),
          ...(b.ttl_seconds !== undefined && { ttl_seconds: b.ttl_seconds }),
        }),
      );
    }),
    defineRoute(rows.removeWhitelistEntry, async ({ req, res, param, reply }) => {
      const w = await wallet(req);
      reply(await visible(res, () => removeWhitelistEntry(deps.ctx, w, param('group'), param('entry'))));
    }),
  ];
}
