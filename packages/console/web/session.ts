/**
 * The signed-in session: the service's JWT, the wallet it names and when it expires, kept in this
 * tab's sessionStorage for the token's life (a reload stays signed in; closing the tab ends it). Only
 * the token is kept: never a key. The way to sign approvals stays in memory: a keypair file is gone
 * after a reload (the page asks for it again), a browser wallet is found again by its name.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Session {
  token: string;
  wallet: string;
  /** ISO 8601: when the service stops taking the token. */
  expires_at: string;
  /** The Wallet Standard wallet that signed in (its name), to sign approvals with again after a reload. */
  wallet_name?: string;
}

/** Why there is no session: never signed in, signed out, or the token expired (or was refused). */
export type Ended = 'none' | 'signed-out' | 'expired';

const KEY = 'tokenops.session';

let current: Session | undefined = read();
let ended: Ended = 'none';
let endedAt: number | undefined;
/** How the signed-in wallet signs a text (its UTF-8 bytes, ed25519, base58), while this page lives. */
let signer: ((text: string) => Promise<string>) | undefined;
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setTimeout> | undefined;

function read(): Session | undefined {
  try {
    const stored = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Session | null;
    return stored && Date.parse(stored.expires_at) > Date.now() ? stored : undefined;
  } catch {
    return undefined;
  }
}

function changed(): void {
  clearTimeout(timer);
  if (current) {
    // setTimeout takes at most 2^31-1 ms; a token lives an hour.
    const left = Math.min(Date.parse(current.expires_at) - Date.now(), 2 ** 31 - 1);
    timer = setTimeout(() => sessionEnded('expired'), Math.max(0, left));
  }
  for (const listener of listeners) listener();
}
changed();

export const session = (): Session | undefined => current;
export const endedBecause = (): Ended => ended;
/** When the session ended (ms), if it did while this page lived. */
export const sessionEndedAt = (): number | undefined => endedAt;

export function startSession(value: Session, sign?: (text: string) => Promise<string>): void {
  current = value;
  signer = sign;
  ended = 'none';
  sessionStorage.setItem(KEY, JSON.stringify(value));
  changed();
}

export function sessionEnded(why: Exclude<Ended, 'none'>): void {
  if (!current) return;
  current = undefined;
  signer = undefined;
  ended = why;
  endedAt = Date.now();
  sessionStorage.removeItem(KEY);
  changed();
}

/** The session as a component sees it: it renders again when the session starts or ends. */
export function useSession(): Session | undefined {
  const [, rerender] = useState(0);
  useEffect(() => {
    const listener = () => rerender((n) => n + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return current;
}

/** Sets how the page signs for this session (after a reload: the wallet found again). */
export const setSigner = (sign: (text: string) => Promise<string>): void => void (signer = sign);
export const currentSigner = () => signer;
