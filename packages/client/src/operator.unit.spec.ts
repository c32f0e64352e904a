import bs58 from 'bs58';
import { generateSigner } from '@tokenops/shared';
import { operatorOpenApiDocument } from '@tokenops/shared/contract';
import { OperatorClient, type ConnectionOptions, type OperatorOperations } from './index';

/** What the client sent: each request's method, path and body; every answer is `answer` with `status`. */
function recorder(answer: Record<string, unknown> = {}, status = 200) {
  const sent: { method: string; path: string; body: string; authorization: string | null }[] = [];
  const fetch = async (request: Request) => {
    const url = new URL(request.url);
    sent.push({
      method: request.method,
      path: url.pathname + url.search,
      body: await request.text(),
      authorization: request.headers.get('authorization'),
    });
    return new Response(JSON.stringify(answer), { status, headers: { 'content-type': 'application/json' } });
  };
  return { sent, fetch };
}

/** Each operation of the document: its method and a pattern of its path under /api/v1. */
const DOCUMENT = Object.entries(operatorOpenApiDocument().paths).flatMap(([path, item]) =>
  Object.entries(item as Record<string, { operationId: string }>).map(([method, op]) => ({
    operationId: op.operationId,
    method: method.toUpperCase(),
    pattern: new RegExp(`^/api/v1${path.replace(/\{\w+\}/g, '[^/?]+')}(\\?|$)`),
  })),
);

const wallet = { address: 'W1', sign: () => new Uint8Array([1, 2, 3]) };
const hook = { url: 'https://example.com/h', event_types: ['transfer.confirmed' as const] };

/**
 * A call of the client for every operation of the operator document. Typed as a Record over the
 * generated operations: an operation added to the document fails to compile here until it has one.
 */
const CALLS: Record<keyof OperatorOperations, (c: OperatorClient, o: ConnectionOptions) => unknown> = {
  signInChallenge: (_, o) => OperatorClient.signIn('http://svc', wallet, o),
  signInToken: (_, o) => OperatorClient.signIn('http://svc', wallet, o),
  listGroups: (c) => c.listGroups(),
  createGroup: (c) => c.createGroup(),
  getGroup: (c) => c.getGroup('g'),
  groupUsage: (c) => c.groupUsage('g'),
  groupSpend: (c) => c.groupSpend('g', { window: '7d' }),
  groupEvents: (c) => c.groupEvents('g', 'cursor', { since: '2026-01-01T00:00:00Z' }),
  reconcileGroup: (c) => c.reconcileGroup('g', { from: '2026-01-01T00:00:00Z' }),
  addWhitelistEntry: (c) => c.addWhitelistEntry('g', { address: 'a', type: 2 }),
  changeWhitelistEntry: (c) => c.changeWhitelistEntry('g', 'e', { daily_limit: '10' }),
  removeWhitelistEntry: (c) => c.removeWhitelistEntry('g', 'e'),
  inviteAgent: (c) => c.inviteAgent('g', { per_tx_limit: '5' }),
  changeLimits: (c) => c.changeLimits('a', { daily_limit: 9 }),
  revokeAgent: (c) => c.revokeAgent('a'),
  emergencyWithdraw: (c) => c.emergencyWithdraw('a'),
  rotateKey: (c) => c.rotateKey('a'),
  freezeAgent: (c) => c.freezeAgent('a', { reason: 'r' }),
  freezeGroup: (c) => c.freezeGroup('g'),
  listMembers: (c) => c.listMembers('g'),
  updateGroup: (c) => c.updateGroup('g', { name: 'n' }),
  addMember: (c) => c.addMember('g', { wallet: 'w', role: 'viewer' }),
  removeMember: (c) => c.removeMember('g', 'w'),
  getGovernance: (c) => c.getGovernance('g'),
  setGovernance: (c) => c.setGovernance('g', { quorum: 2 }),
  unfreezeAgent: (c) => c.unfreezeAgent('a'),
  unfreezeGroup: (c) => c.unfreezeGroup('g'),
  listProposals: (c) => c.listProposals('g', { status: 'pending' }),
  getProposal: (c) => c.getProposal('p'),
  signProposal: (c) => c.signProposal('p', { signature: 'S' }),
  getProposalSecret: (c) => c.getProposalSecret('p'),
  cancelProposal: (c) => c.cancelProposal('p', { reason: 'no' }),
  createFleetWebhook: (c) => c.createFleetWebhook('g', hook),
  listWebhooks: (c) => c.listWebhooks('g'),
  deleteWebhook: (c) => c.deleteWebhook('w'),
  listDeliveries: (c) => c.listDeliveries('w', { limit: 5 }),
  redeliver: (c) => c.redeliver('w', { event_id: 'ev' }),
  rotateWebhookSecret: (c) => c.rotateWebhookSecret('w'),
  listAuditors: (c) => c.listAuditors('g'),
  grantAuditor: (c) => c.grantAuditor('g', { wallet: 'A' }),
  removeAuditor: (c) => c.removeAuditor('g', { wallet: 'A' }),
  auditEvents: (c) => c.auditEvents('g', { limit: 10 }),
  verifyGroupLog: (c) => c.verifyGroupLog('g'),
  intentStory: (c) => c.intentStory('i'),
  previewPolicy: (c) => c.previewPolicy('g', { approval_threshold: '50' }),
  getApprovalPolicy: (c) => c.getApprovalPolicy('g'),
  setApprovalPolicy: (c) => c.setApprovalPolicy('g', { threshold: '50' }),
  getGroupLimits: (c) => c.getGroupLimits('g'),
  setGroupLimits: (c) => c.setGroupLimits('g', { daily_limit: '100', hourly_tx_cap: null }),
  getGuard: (c) => c.getGuard('g'),
  setGuard: (c) => c.setGuard('g', { rules: [{ kind: 'new_token', action: 'hold' }] }),
  listApprovals: (c) => c.listApprovals('g', { status: 'pending' }),
  getApproval: (c) => c.getApproval('a'),
  approveSpend: (c) => c.approveSpend('a', { signature: 'S' }),
  rejectSpend: (c) => c.rejectSpend('a'),
  listTokens: (c) => c.listTokens(),
  listVenues: (c) => c.listVenues(),
  listPools: (c) => c.listPools(),
  airdrop: (c) => c.airdrop({ to: 't', amount: '1.5' }),
};

describe('the operator client', () => {
  it('has a call for every operation of the served operator document, and nothing else', () => {
    expect(Object.keys(CALLS).sort()).toEqual(DOCUMENT.map((op) => op.operationId).sort());
  });

  it.each(DOCUMENT.map((op) => [op.operationId, op] as const))(
    '%s: its method and path, with the token',
    async (operationId, op) => {
      const { sent, fetch } = recorder({ message: 'm', token: 't', expires_at: '2026-01-01T00:00:00Z' });
      const client = new OperatorClient({ baseUrl: 'http://svc', token: 'jwt', fetch });
      await CALLS[operationId as keyof OperatorOperations](client, { fetch });
      const request = sent.find((r) => r.method === op.method && op.pattern.test(r.path));
      expect(request).toBeDefined();
      if (!operationId.startsWith('signIn')) expect(request!.authorization).toBe('Bearer jwt');
    },
  );

  it('fills path parameters (escaped), queries and bodies from the arguments', async () => {
    const { sent, fetch } = recorder();
    const client = new OperatorClient({ baseUrl: 'http://svc/api/v1/', token: 'jwt', fetch });
    await client.removeWhitelistEntry('g/1', 'e 2');
    await client.listDeliveries('w', { limit: 5, before: '2026-01-01T00:00:00Z' });
    await client.changeLimits('a', { per_tx_limit: '12.5' });
    expect(sent).toEqual([
      expect.objectContaining({
        method: 'DELETE',
        path: '/api/v1/orchestrator/groups/g%2F1/whitelist/e%202',
      }),
      expect.objectContaining({
        method: 'GET',
        path: '/api/v1/orchestrator/webhooks/w/deliveries?limit=5&before=2026-01-01T00%3A00%3A00Z',
      }),
      {
        method: 'PATCH',
        path: '/api/v1/orchestrator/agents/a/limits',
        body: '{"per_tx_limit":"12.5"}',
        authorization: 'Bearer jwt',
      },
    ]);
  });

  it('signs in: signs the challenge’s text with the wallet, sends the signature in base58, keeps the token', async () => {
    const signer = generateSigner();
    const { sent, fetch } = recorder({
      message: 'sign me ✓',
      token: 'the-jwt',
      expires_at: '2026-01-01T01:00:00Z',
    });
    const client = await OperatorClient.signIn('http://svc', signer, { fetch });
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/v1/orchestrator/auth/challenge',
      'POST /api/v1/orchestrator/auth/token',
    ]);
    expect(JSON.parse(sent[0]!.body)).toEqual({ wallet: signer.address });
    const exchanged = JSON.parse(sent[1]!.body) as { wallet: string; message: string; signature: string };
    expect(exchanged).toMatchObject({ wallet: signer.address, message: 'sign me ✓' });
    const signed = signer.sign(new TextEncoder().encode('sign me ✓')); // ed25519: deterministic
    expect([...bs58.decode(exchanged.signature)]).toEqual([...signed]);
    expect({ token: client.token, expiresAt: client.expiresAt }).toEqual({
      token: 'the-jwt',
      expiresAt: '2026-01-01T01:00:00Z',
    });
    await client.listGroups();
    expect(sent.at(-1)!.authorization).toBe('Bearer the-jwt');
  });

  it('retries the idempotent operations on a 503, the others not (the agent client’s policy)', async () => {
    const { sent, fetch } = recorder({ error: 'service_unavailable', message: 'down' }, 503);
    const client = new OperatorClient({
      baseUrl: 'http://svc',
      token: 'jwt',
      fetch,
      retry: { maxAttempts: 3, baseDelayMs: 1 },
    });
    const attempts = async (call: () => Promise<unknown>) => {
      const before = sent.length;
      await expect(call()).rejects.toMatchObject({
        name: 'TokenOpsError',
        code: 'service_unavailable',
        status: 503,
      });
      return sent.length - before;
    };
    expect(await attempts(() => client.listGroups())).toBe(3);
    expect(await attempts(() => client.changeLimits('a', { daily_limit: 1 }))).toBe(3);
    expect(await attempts(() => client.inviteAgent('g'))).toBe(1);
    expect(await attempts(() => client.rotateKey('a'))).toBe(1);
  });
});
