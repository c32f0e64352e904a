/**
 * The operator client against the running service (embedded; the `topology` project runs it on the
 * server processes): it signs in with a wallet and runs a group through its typed methods; refusals
 * come back as TokenOpsError with the contract's codes.
 */
import { generateSigner } from '@tokenops/shared';
import { startWorld, type World } from '@tokenops/testing/harness';
import { OperatorClient, TokenOpsClient, register } from './index';
import type { components } from './generated/operator-api';

type Invitation = components['schemas']['InvitationResponse'];
import { refusal } from '@tokenops/testing/refusal';

let world: World;
let operator: OperatorClient;
beforeAll(async () => {
  world = await startWorld();
  operator = await OperatorClient.signIn(world.client.url, generateSigner(), {
    retry: { baseDelayMs: 10 },
  });
});
afterAll(async () => {
  await world?.close();
});

describe('the operator client', () => {
  it('signs in with a wallet: a token valid about an hour', () => {
    expect(operator.token).toEqual(expect.any(String));
    const left = Date.parse(operator.expiresAt!) - Date.now();
    expect(left).toBeGreaterThan(55 * 60_000);
    expect(left).toBeLessThanOrEqual(60 * 60_000);
  });

  it('creates a group, allow-lists, invites, changes limits, lists, revokes: the agent sees each step', async () => {
    const created = await operator.createGroup({ per_tx_limit: '20', daily_limit: 100, hourly_tx_cap: 5 });
    const group = created.group_config_pda;
    expect(created.default_limits).toEqual({ per_tx_limit: '20', daily_limit: '100', hourly_tx_cap: 5 });

    const vendor = generateSigner().address;
    // Allowing a recipient widens what agents may spend: a proposal, which the client signs with the
    // wallet it signed in with (the quorum is 1): then the entry is in force.
    const proposal = await operator.addWhitelistEntry(group, {
      address: vendor,
      type: 1,
      label: 'vendor',
      approved_amount: '250.5',
      ttl_seconds: 3_600,
    });
    expect(proposal).toMatchObject({ action: 'allow_list.add', status: 'pending', signatures_required: 1 });
    const entry = await operator.enact(proposal);
    expect(entry).toMatchObject({ address: vendor, type: 1, label: 'vendor', approved_amount: '250.5' });

    const invitation = (await operator.enact(
      await operator.inviteAgent(group, { per_tx_limit: 10, label: 'bot' }),
    )) as Invitation;
    expect(invitation.limits).toEqual({ per_tx_limit: '10', daily_limit: '100', hourly_tx_cap: 5 });
    const { api_key, agent_wallet_pda: agentId } = await register(
      world.client.url,
      invitation.invitation_code,
    );
    expect(agentId).toBe(invitation.agent_wallet_pda);
    const agent = new TokenOpsClient({ baseUrl: world.client.url, apiKey: api_key });

    // Lower: made at once, no proposal.
    const changed = await operator.enact(await operator.changeLimits(agentId, { daily_limit: '42.25' }));
    expect(changed).toEqual({
      agent_wallet_pda: agentId,
      limits: { per_tx_limit: '10', daily_limit: '42.25', hourly_tx_cap: 5 },
    });
    expect(await agent.limits()).toMatchObject({ per_tx_limit: 10, daily_limit: 42.25, group_id: group });

    const { groups } = await operator.listGroups();
    expect(groups.map((g) => g.group_config_pda)).toEqual([group]); // this wallet's groups only
    const shown = await operator.getGroup(group);
    expect(shown.agents).toEqual([
      expect.objectContaining({ agent_wallet_pda: agentId, status: 'active', label: 'bot' }),
    ]);
    expect(shown.whitelist.map((w) => w.address)).toContain(vendor);

    expect(await operator.revokeAgent(agentId)).toEqual({ agent_wallet_pda: agentId, is_active: 'revoked' });
    const refused = await refusal(agent.limits());
    expect({ code: refused.code, status: refused.status }).toEqual({ code: 'unauthorized', status: 401 });
    expect((await operator.getGroup(group)).agents[0]!.status).toBe('revoked');
  });

  it('reads the reference data: the registry’s tokens, the venues, the pools', async () => {
    const { tokens } = await operator.listTokens();
    expect(tokens.map((t) => t.symbol)).toEqual(expect.arrayContaining(['USDC', 'SOL']));
    expect(tokens.every((t) => typeof t.mint === 'string' && Number.isInteger(t.decimals))).toBe(true);
    expect((await operator.listVenues()).venues.length).toBeGreaterThan(0);
    expect(await operator.listPools()).toEqual(expect.objectContaining({ aggregator: expect.any(String) }));
  });

  it('a refusal is a TokenOpsError with the contract’s code: not_found (404), validation_error (400) with details', async () => {
    const missing = await refusal(operator.changeLimits(generateSigner().address, { daily_limit: 1 }));
    expect(missing).toMatchObject({ name: 'TokenOpsError', code: 'not_found', status: 404 });
    expect(missing.message).toEqual(expect.any(String));

    const invalid = await refusal(
      operator.addWhitelistEntry(world.groupId, { address: 'not an address', type: 2 }),
    );
    expect(invalid).toMatchObject({ code: 'validation_error', status: 400 });
    expect(invalid.details!.length).toBeGreaterThan(0);
    for (const detail of invalid.details!)
      expect(detail).toEqual({ path: '/address', issue: expect.any(String) });

    const stranger = new OperatorClient({ baseUrl: world.client.url, token: 'not-a-jwt' });
    const unsigned = await refusal(stranger.listGroups());
    expect({ code: unsigned.code, status: unsigned.status }).toEqual({ code: 'unauthorized', status: 401 });
  });
});
