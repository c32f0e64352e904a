/**
 * The first start's demo: an operator wallet (a keypair file the CLI can use), a group, an allow-listed
 * demo recipient with a budget, the local lending venue allow-listed, and one invited agent funded
 * with demo USDC. What a newcomer needs to
 * try the contract with curl is printed, and kept in the data folder.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  addWhitelistEntry,
  airdrop,
  createGroup,
  ENTRY_TYPE,
  generateSigner,
  invite,
  streams,
  type Context,
} from '@tokenops/shared';

export interface Demo {
  operator_keypair: string;
  operator_wallet: string;
  group_config_pda: string;
  recipient: string;
  /** The local lending venue, allow-listed (type 2). */
  lending_program?: string;
  agent_wallet_pda: string;
  invitation_code: string;
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
    return { demo, created: false, invitation: await invitationState(ctx, demo) };
  }
  const operator = generateSigner();
  const keypairFile = join(dataDir, 'demo-operator.json');
  // The Solana CLI keypair format: 64 bytes, the seed then the public key.
  writeFileSync(keypairFile, JSON.stringify([...operator.seed, ...operator.publicKey]), { mode: 0o600 });
  const group = await createGroup(ctx, operator.address);
  const recipient = generateSigner().address;
  await addWhitelistEntry(ctx, operator.address, group.group_config_pda, {
    address: recipient,
    type: ENTRY_TYPE.recipient,
    label: 'demo recipient',
    approved_amount: 500,
    ttl_seconds: 30 * 24 * 3600,
  });
  const venue = ctx.venues[0];
  if (venue)
    await addWhitelistEntry(ctx, operator.address, group.group_config_pda, {
      address: venue.program,
      type: ENTRY_TYPE.protocol,
      label: venue.name,
    });
  const invitation = await invite(ctx, operator.address, group.group_config_pda, { label: 'demo agent' });
  await airdrop(ctx, { to: invitation.agent_wallet_pda, amount: 1000 });
  const demo: Demo = {
    operator_keypair: keypairFile,
    operator_wallet: operator.address,
    group_config_pda: group.group_config_pda,
    recipient,
    ...(venue && { lending_program: venue.program }),
    agent_wallet_pda: invitation.agent_wallet_pda,
    invitation_code: invitation.invitation_code,
  };
  writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return { demo, created: true, invitation: 'usable' };
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
    'Read the balances, the limits and the history (it lists transfers and swaps; deposits and withdrawals show in the balance):',
    `  curl -s ${url}/api/v1/balance -H "authorization: Bearer $API_KEY"`,
    `  curl -s ${url}/api/v1/limits -H "authorization: Bearer $API_KEY"`,
    `  curl -s ${url}/api/v1/history -H "authorization: Bearer $API_KEY"`,
    '',
  ].join('\n');
}
