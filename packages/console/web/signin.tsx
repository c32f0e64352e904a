/**
 * Sign-in, the API's own: a challenge signed by a Wallet Standard wallet (`solana:signMessage`), or by
 * a keypair file opened here (a Solana CLI keypair, 64 numbers; read into this page's memory, used to
 * sign, never sent anywhere). The wallet chosen also signs approvals of held spends until sign-out
 * (api.ts signWithWallet).
 */
import { useEffect, useState } from 'preact/hooks';
import { getWallets } from '@wallet-standard/app';
import type { Wallet, WalletAccount } from '@wallet-standard/base';
import { StandardConnect, type StandardConnectFeature } from '@wallet-standard/features';
import { SolanaSignMessage, type SolanaSignMessageFeature } from '@solana/wallet-standard-features';
import { ed25519 } from '@noble/curves/ed25519';
import bs58 from 'bs58';
import { signIn } from './api';

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

async function withWallet(wallet: Wallet): Promise<string> {
  const { connect } = (wallet.features as StandardConnectFeature)[StandardConnect];
  const { accounts } = await connect();
  const account: WalletAccount | undefined = accounts[0];
  if (!account) throw new Error(`${wallet.name} shared no account.`);
  const { signMessage } = (wallet.features as SolanaSignMessageFeature)[SolanaSignMessage];
  await signIn(
    account.address,
    async (message) => (await signMessage({ account, message }))[0]!.signature,
    bs58.encode,
  );
  return account.address;
}

async function withKeypair(file: File): Promise<string> {
  const bytes = Uint8Array.from(JSON.parse(await file.text()) as number[]);
  if (bytes.length !== 64) throw new Error('A keypair file holds 64 numbers (solana-keygen’s format).');
  const secret = bytes.slice(0, 32);
  const address = bs58.encode(ed25519.getPublicKey(secret));
  await signIn(address, async (message) => ed25519.sign(message, secret), bs58.encode);
  return address;
}

export function SignIn({ onSignedIn }: { onSignedIn: (wallet: string) => void }) {
  const wallets = useWallets();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const attempt = async (how: () => Promise<string>) => {
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await how());
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="signin-title" class="card narrow">
      <h1 id="signin-title">Sign in</h1>
      <p>Sign the service’s challenge with the wallet that owns your groups.</p>
      <h2>A browser wallet</h2>
      {wallets.length === 0 ? (
        <p>No Wallet Standard wallet found in this browser.</p>
      ) : (
        <ul class="plain">
          {wallets.map((w) => (
            <li key={w.name}>
              <button type="button" disabled={busy} onClick={() => attempt(() => withWallet(w))}>
                Sign in with {w.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      <h2>A keypair file</h2>
      <p>For the local chain: the file stays in this page’s memory and is never sent.</p>
      <label>
        Keypair file (JSON)
        <input
          type="file"
          accept=".json,application/json"
          disabled={busy}
          onChange={(e) => {
            const file = (e.currentTarget as HTMLInputElement).files?.[0];
            if (file) void attempt(() => withKeypair(file));
          }}
        />
      </label>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}
