/**
 * Sign-in, the API's own: a challenge signed by a Wallet Standard wallet (`solana:signMessage`), or by
 * a keypair file opened here (a Solana CLI keypair, 64 numbers; read into this page's memory, used to
 * sign, never sent anywhere or stored). The wallet chosen also signs approvals of held spends
 * (signWithWallet): after a reload a browser wallet is found again by its name; a keypair file must be
 * opened again.
 */
import { useEffect, useState } from 'preact/hooks';
import { getWallets } from '@wallet-standard/app';
import type { Wallet, WalletAccount } from '@wallet-standard/base';
import { StandardConnect, type StandardConnectFeature } from '@wallet-standard/features';
import { SolanaSignMessage, type SolanaSignMessageFeature } from '@solana/wallet-standard-features';
import { ed25519 } from '@noble/curves/ed25519';
import bs58 from 'bs58';
import { api, Refusal, signIn, type Schemas } from './api';
import { currentSigner, endedBecause, session, sessionEndedAt, setSigner, startSession } from './session';
import { Failure, useAction } from './ui';
import { clock } from './words';

const canSign = (w: Wallet): boolean => SolanaSignMessage in w.features && StandardConnect in w.features;

/** The wallets the page can sign in with, as they register (before or after the page loads). */
function useWallets(): readonly Wallet[] {
  const registry = getWallets();
  const [wallets, setWallets] = useState(() => registry.get().filter(canSign));
  useEffect(() => {
    const update = () => setWallets(registry.get().filter(canSign));
    const offs = [registry.on('register', update), registry.on('unregister', update)];
    return () => offs.forEach((off) => off());
  }, []);
  return wallets;
}

type Sign = (message: Uint8Array) => Promise<Uint8Array>;
const textSigner = (sign: Sign) => async (text: string) =>
  bs58.encode(await sign(new TextEncoder().encode(text)));

async function connect(wallet: Wallet): Promise<{ address: string; sign: Sign }> {
  const { connect: open } = (wallet.features as StandardConnectFeature)[StandardConnect];
  const { accounts } = await open();
  const account: WalletAccount | undefined = accounts[0];
  if (!account) throw new Error(`${wallet.name} shared no account.`);
  const { signMessage } = (wallet.features as SolanaSignMessageFeature)[SolanaSignMessage];
  return {
    address: account.address,
    sign: async (message) => (await signMessage({ account, message }))[0]!.signature,
  };
}

async function withWallet(wallet: Wallet): Promise<void> {
  const { address, sign } = await connect(wallet);
  const answer = await signIn(address, sign, bs58.encode);
  startSession({ ...answer, wallet: address, wallet_name: wallet.name }, textSigner(sign));
}

/** A plain sentence for a file that is not a Solana CLI keypair. */
export const NOT_A_KEYPAIR =
  'This file is not a Solana keypair: a keypair file (as solana-keygen writes it) holds a JSON list of 64 numbers.';

async function readKeypair(file: File): Promise<{ address: string; sign: Sign }> {
  let numbers: unknown;
  try {
    numbers = JSON.parse(await file.text());
  } catch {
    throw new Error(NOT_A_KEYPAIR);
  }
  if (
    !Array.isArray(numbers) ||
    numbers.length !== 64 ||
    !numbers.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)
  )
    throw new Error(NOT_A_KEYPAIR);
  const secret = Uint8Array.from(numbers as number[]).slice(0, 32);
  const address = bs58.encode(ed25519.getPublicKey(secret));
  return { address, sign: async (message) => ed25519.sign(message, secret) };
}

async function withKeypair(file: File): Promise<void> {
  const { address, sign } = await readKeypair(file);
  const answer = await signIn(address, sign, bs58.encode);
  startSession({ ...answer, wallet: address }, textSigner(sign));
}

/**
 * The signed-in wallet's signature (base58) of a text, signed as the sign-in challenge was: after a
 * reload, the browser wallet that signed in is asked again (it must still hold the same account).
 */
export async function signWithWallet(text: string): Promise<string> {
  const known = currentSigner();
  if (known) return known(text);
  const s = session();
  if (!s?.wallet_name)
    throw new Error(
      'This page no longer holds the keypair file you signed in with (a reload forgets it): open it again below to sign.',
    );
  const wallet = getWallets()
    .get()
    .find((w) => w.name === s.wallet_name && canSign(w));
  if (!wallet)
    throw new Error(
      `${s.wallet_name}, the wallet you signed in with, is not in this browser now: sign in again to sign.`,
    );
  const { address, sign } = await connect(wallet);
  if (address !== s.wallet)
    throw new Error(`${wallet.name} now shares another account than the one signed in.`);
  const signText = textSigner(sign);
  setSigner(signText);
  return signText(text);
}

/** Opens the keypair file again (after a reload) to sign with it; it must be the signed-in wallet's. */
export function KeypairAgain() {
  const act = useAction();
  const [done, setDone] = useState(currentSigner() !== undefined);
  if (done || session()?.wallet_name) return null;
  return (
    <div class="row">
      <label>
        Keypair file to sign with
        <input
          type="file"
          accept=".json,application/json"
          onChange={(e) => {
            const file = (e.currentTarget as HTMLInputElement).files?.[0];
            if (!file) return;
            void act.run(async () => {
              const { address, sign } = await readKeypair(file);
              if (address !== session()?.wallet)
                throw new Error('This keypair is not the wallet signed in: open the one you signed in with.');
              setSigner(textSigner(sign));
              setDone(true);
            });
          }}
        />
      </label>
      <Failure error={act.error} />
    </div>
  );
}

export function SignIn() {
  const wallets = useWallets();
  const act = useAction();
  const expired = endedBecause() === 'expired';
  return (
    <section aria-labelledby="signin-title" class="card narrow">
      <h1 id="signin-title">Sign in</h1>
      {expired ? (
        <p role="status" class="notice">
          Your session ended at {clock(sessionEndedAt() ?? Date.now())}: sign in again to go on where you
          were.
        </p>
      ) : (
        <p>Sign the service’s challenge with the wallet of your groups.</p>
      )}
      <h2>A browser wallet</h2>
      {wallets.length === 0 ? (
        <p>No Wallet Standard wallet found in this browser.</p>
      ) : (
        <ul class="plain">
          {wallets.map((w) => (
            <li key={w.name}>
              <button type="button" disabled={act.busy} onClick={() => void act.run(() => withWallet(w))}>
                Sign in with {w.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      <h2>A keypair file</h2>
      <p>For the local chain: the file stays in this page’s memory and is never sent or stored.</p>
      <label>
        Keypair file (JSON)
        <input
          type="file"
          accept=".json,application/json"
          disabled={act.busy}
          onChange={(e) => {
            const file = (e.currentTarget as HTMLInputElement).files?.[0];
            if (file) void act.run(() => withKeypair(file));
          }}
        />
      </label>
      <Failure error={act.error} />
    </section>
  );
}

type Proposal = Schemas['Proposal'];
/** What the generated client answers; `proposal`: the proposal it became (a 202), signed and executed. */
type FetchAnswer<T> = { data?: T; error?: unknown; response: Response; proposal?: Proposal };

const isPendingProposal = (data: unknown): data is Proposal =>
  typeof data === 'object' &&
  data !== null &&
  typeof (data as Proposal).proposal_id === 'string' &&
  typeof (data as Proposal).message === 'string' &&
  (data as Proposal).status === 'pending';

/**
 * A change that widens what agents may spend is a proposal (`202`, docs/governance.md): the signed-in
 * admin signs its message here, with the wallet it signed in with, as part of the same action, and the
 * page gets the change's answer (its `result`: an invitation's code, the entry, ...). Any other answer
 * passes as it came; one that was a proposal carries it (`proposal`), so a page can say the change
 * was one. A proposal that needs more admins' signatures is told as such (`proposed`): it changes
 * nothing until they sign it.
 */
export async function enacted<T>(call: Promise<FetchAnswer<T>>): Promise<FetchAnswer<Exclude<T, Proposal>>> {
  const answer = await call;
  if (answer.response.status !== 202 || !isPendingProposal(answer.data))
    return answer as FetchAnswer<Exclude<T, Proposal>>;
  const proposal = answer.data;
  const signature = await signWithWallet(proposal.message);
  const signed = await api.POST('/orchestrator/proposals/{proposal}/sign', {
    params: { path: { proposal: proposal.proposal_id } },
    body: { signature },
  });
  if (signed.data === undefined) return signed as unknown as FetchAnswer<Exclude<T, Proposal>>;
  if (signed.data.status === 'failed')
    throw new Refusal('failed', `The change no longer applies: ${signed.data.reason ?? 'it failed'}.`);
  if (signed.data.status !== 'executed') throw new Refusal('proposed', proposedSentence(signed.data));
  return {
    data: signed.data.result as Exclude<T, Proposal>,
    response: signed.response,
    proposal: signed.data,
  };
}

/** What a proposal signed by the signed-in admin but not executed yet waits for, in a sentence. */
export function proposedSentence(p: Proposal): string {
  const count = `${p.signatures.length} of ${p.signatures_required} signatures`;
  if (p.status === 'ready' && p.ready_at)
    return `Proposed and signed by you (${count}): it has its quorum and is made at ${clock(p.ready_at)}, after the governance delay (proposal ${p.proposal_id}, in the Inbox).`;
  return `Proposed and signed by you (${count}): nothing changes until the other admins sign proposal ${p.proposal_id} (in the Inbox).`;
}
