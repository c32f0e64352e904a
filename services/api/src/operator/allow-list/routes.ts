/**
 * The allow-list of a group: an entry proposed (a recipient with its budget and lifetime, or a
 * protocol, either with a daily limit: `202`, made once the admins signed it), an entry's daily limit
 * changed (set or lowered at once, lifted or raised by a proposal) or an entry removed at once, the
 * changes answered once the agent views include them.
 */
import {
  OPERATOR_ALLOW_LIST,
  governed,
  propose,
  removeWhitelistEntry,
  type WhitelistChangeRequest,
  type WhitelistRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';
import { operatorCalls, replyGoverned } from '../common';

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
          ...(b.daily_limit !== undefined && b.daily_limit !== null && { daily_limit: b.daily_limit }),
        }),
      );
    }),
    defineRoute(rows.changeWhitelistEntry, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<WhitelistChangeRequest>();
      replyGoverned(
        reply,
        await visible(res, () =>
          governed(deps.ctx, w, param('group'), 'allow_list.daily_limit', {
            entry: param('entry'),
            daily_limit: b.daily_limit,
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
