/**
 * The first start's demo: an operator wallet (a keypair file the CLI can use), a group, an allow-listed
 * demo recipient with a budget, the local lending venue allow-listed, and one invited agent funded
 * with demo USDC. What a newcomer needs to
 * try the contract with curl is printed, and kept in the data folder.
 *
 * x402: each start also runs a local paid resource (@tokenops/x402-local: @x402/express over HTTPS on
 * 127.0.0.1, a facilitator from @x402/core + @x402/svm settling on the embedded chain over its
 * JSON-RPC), whose payee is allow-listed in the demo group; the curl that buys it is printed.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  airdrop,
  createGroup,
  enactAs,
  ENTRY_TYPE,
  generateSigner,
  isLocalChain,
  signerFromSeed,
  streams,
  type AdminSigner,
  type Context,
} from '@tokenops/shared';
import { startFacilitator, startPaidResource, type TlsMaterial } from '@tokenops/x402-local';

export interface Demo {
  operator_keypair: string;
  operator_wallet: string;
  group_config_pda: string;
  recipient: string;
  /** The local lending venue, allow-listed (type 2). */
  lending_program?: string;
  agent_wallet_pda: string;
  invitation_code: string;
  /** The demo x402 resource's payee, allow-listed (budget 100 USDC); added at a start that lacks it. */
  x402_payee?: string;
}

/** Whether the demo's invitation code still registers the agent: not once redeemed, nor past its expiry. */
export type InvitationState = 'usable' | 'redeemed' | 'expired';

export async function ensureDemo(
  ctx: Context,
  dataDir: string,
): Promise<{ demo: Demo; created: boolean; invitation: InvitationState }> {
  const file = join(dataDir, 'demo.json');
  if (existsSync(file)) {
    const demo = JSON.parse(readFileSync(file, 'utf8')) as Demo;
    if (!demo.x402_payee) {
      // A demo from before x402: its payee is added now.
      demo.x402_payee = await allowX402Payee(ctx, operatorOf(demo), demo.group_config_pda);
      writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
    }
    return { demo, created: false, invitation: await invitationState(ctx, demo) };
  }
  const operator = generateSigner();
  const keypairFile = join(dataDir, 'demo-operator.json');
  // The Solana CLI keypair format: 64 bytes, the seed then the public key.
  writeFileSync(keypairFile, JSON.stringify([...operator.seed, ...operator.publicKey]), { mode: 0o600 });
  const group = await createGroup(ctx, operator.address);
  const recipient = generateSigner().address;
  // As the operator would, with its keypair: each widening change proposed and signed at once.
  const groupId = group.group_config_pda;
  await enactAs(ctx, operator, groupId, 'allow_list.add', {
    address: recipient,
    type: ENTRY_TYPE.recipient,
    label: 'demo recipient',
    approved_amount: 500,
    ttl_seconds: 30 * 24 * 3600,
  });
  const venue = ctx.venues[0];
  if (venue)
    await enactAs(ctx, operator, groupId, 'allow_list.add', {
      address: venue.program,
      type: ENTRY_TYPE.protocol,
      label: venue.name,
    });
  const x402Payee = await allowX402Payee(ctx, operator, groupId);
  const invitation = (await enactAs(ctx, operator, groupId, 'agent.invite', { label: 'demo agent' })) as {
    agent_wallet_pda: string;
    invitation_code: string;
  };
  await airdrop(ctx, { to: invitation.agent_wallet_pda, amount: 1000 });
  const demo: Demo = {
    operator_keypair: keypairFile,
    operator_wallet: operator.address,
    group_config_pda: group.group_config_pda,
    recipient,
    ...(venue && { lending_program: venue.program }),
    agent_wallet_pda: invitation.agent_wallet_pda,
    invitation_code: invitation.invitation_code,
    x402_payee: x402Payee,
  };
  writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return { demo, created: true, invitation: 'usable' };
}

/** The demo operator's signer, from its keypair file (the Solana CLI format: the seed, then the public key). */
export function operatorOf(demo: Demo): AdminSigner {
  const bytes = Uint8Array.from(JSON.parse(readFileSync(demo.operator_keypair, 'utf8')) as number[]);
  return signerFromSeed(bytes.subarray(0, 32));
}

async function allowX402Payee(ctx: Context, operator: AdminSigner, groupId: string): Promise<string> {
  const payee = generateSigner().address;
  await enactAs(ctx, operator, groupId, 'allow_list.add', {
    address: payee,
    type: ENTRY_TYPE.recipient,
    label: 'demo x402 resource',
    approved_amount: 100,
    ttl_seconds: 30 * 24 * 3600,
  });
  return payee;
}

/** The demo's paid resource: its URL (0.05 USDC a request), and how to stop it and its facilitator. */
export interface DemoResource {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the demo's paid resource on 127.0.0.1 with `tls`, paid to `payee` in the chain's USDC through
 * a facilitator settling over `rpcUrl` (its fee payer given SOL on the local chain); `allow` lets the
 * service's x402 requests reach exactly its origin.
 */
export async function startDemoResource(
  ctx: Context,
  rpcUrl: string,
  payee: string,
  tls: TlsMaterial,
  allow: (origin: string) => void,
): Promise<DemoResource> {
  const chain = ctx.chain;
  if (!isLocalChain(chain)) throw new Error('the demo resource needs the local chain');
  const usdc = chain.tokens.find((t) => t.symbol === 'USDC')!.mint;
  // The payee's token account exists (an x402 payment pays into it, it does not create it).
  await chain.mintTo(payee, usdc, 0n, `demo x402 payee ${payee}`);
  const facilitator = await startFacilitator({ rpcUrl, fund: (a, l) => chain.fund(a, l) });
  const resource = await startPaidResource({
    facilitator,
    tls,
    routes: { report: { amount: '50000', asset: usdc, payTo: payee } },
  });
  allow(resource.url);
  return {
    url: `${resource.url}/report`,
    close: async () => {
      await resource.close();
      await facilitator.close();
    },
  };
}

async function invitationState(ctx: Context, demo: Demo): Promise<InvitationState> {
  const agent = await ctx.agents.load(streams.agent(demo.agent_wallet_pda));
  if (agent.state.status !== 'unregistered') return 'redeemed';
  const group = await ctx.groups.load(streams.group(demo.group_config_pda));
  const expiresAt = group.state.invitations.get(demo.agent_wallet_pda)?.expiresAt ?? 0;
  return expiresAt > ctx.now() ? 'usable' : 'expired';
}

export function demoInstructions(
  url: string,
  demo: Demo,
  created: boolean,
  tokens: readonly { symbol: string; mint: string }[],
  invitation: InvitationState = 'usable',
  x402Url?: string,
): string {
  const mint = (symbol: string) => tokens.find((t) => t.symbol === symbol)?.mint ?? '';
  const tokenops = `npx tokenops --url ${url} --keypair ${demo.operator_keypair}`;
  const register =
    invitation === 'usable'
      ? [
          'Register the agent (the invitation works once) and keep the api_key it prints:',
          `  curl -s ${url}/api/v1/register -H 'content-type: application/json' -d '{"invitation_code":"${demo.invitation_code}"}'`,
        ]
      : [
          invitation === 'redeemed'
            ? `The demo invitation is redeemed: the agent registered and got its api_key then (shown once).`
            : `The demo invitation expired before anyone redeemed it.`,
          'A new api_key for the demo agent (the old one stops working):',
          ...(invitation === 'redeemed' ? [`  ${tokenops} rotate-key ${demo.agent_wallet_pda}`] : []),
          'Or invite another agent into the demo group; it prints a new invitation code to register with:',
          `  ${tokenops} invite ${demo.group_config_pda}`,
          `  curl -s ${url}/api/v1/register -H 'content-type: application/json' -d '{"invitation_code":"<the new code>"}'`,
        ];
  return [
    '',
    created
      ? `A demo group is ready (kept in ${join(dirname(demo.operator_keypair), 'demo.json')}):`
      : `The demo group from the first start (${join(dirname(demo.operator_keypair), 'demo.json')}):`,
    `  operator wallet   ${demo.operator_wallet} (keypair: ${demo.operator_keypair})`,
    `  group             ${demo.group_config_pda}`,
    `  agent wallet      ${demo.agent_wallet_pda} (funded with 1,000 USDC)`,
    `  recipient         ${demo.recipient} (allow-listed, budget 500 USDC, 30 days)`,
    '',
    ...register,
    '',
    'Transfer 12.5 USDC to the recipient:',
    `  curl -s ${url}/api/v1/transfer -H "authorization: Bearer $API_KEY" -H 'content-type: application/json' -d '{"to":"${demo.recipient}","amount":12.5,"idempotency_key":"demo-1"}'`,
    '',
    'Swap 10 USDC for SOL through the local pools (at least the quote less 0.5 %):',
    `  curl -s ${url}/api/v1/swap -H "authorization: Bearer $API_KEY" -H 'content-type: application/json' -d '{"from_token":"USDC","from_mint":"${mint('USDC')}","to_token":"SOL","to_mint":"${mint('SOL')}","amount":10,"idempotency_key":"demo-2"}'`,
    '',
    ...(demo.lending_program
      ? [
          'Deposit 100 USDC at the local lending venue (the balance then shows kUSDC), and withdraw 40 kUSDC:',
          `  curl -s ${url}/api/v1/deposit -H "authorization: Bearer $API_KEY" -H 'content-type: application/json' -d '{"lending_program":"${demo.lending_program}","amount":100,"idempotency_key":"demo-3"}'`,
          `  curl -s ${url}/api/v1/withdraw -H "authorization: Bearer $API_KEY" -H 'content-type: application/json' -d '{"lending_program":"${demo.lending_program}","amount":40,"idempotency_key":"demo-4"}'`,
          '',
        ]
      : []),
    ...(x402Url
      ? [
          'Pay for an HTTP resource (x402): a local resource asks 0.05 USDC, paid to its allow-listed payee under the',
          "agent's limits (the 0.10 % fee on top); the answer holds the resource's reply:",
          `  curl -s ${url}/api/v1/x402/pay -H "authorization: Bearer $API_KEY" -H 'content-type: application/json' -d '{"url":"${x402Url}","max_amount":0.1,"idempotency_key":"demo-5"}'`,
          '',
        ]
      : []),
    'Read the balances, the limits and the history (it lists transfers and swaps; deposits and withdrawals show in the balance):',
    `  curl -s ${url}/api/v1/balance -H "authorization: Bearer $API_KEY"`,
    `  curl -s ${url}/api/v1/limits -H "authorization: Bearer $API_KEY"`,
    `  curl -s ${url}/api/v1/history -H "authorization: Bearer $API_KEY"`,
    '',
  ].join('\n');
}
