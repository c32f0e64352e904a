/**
 * The console's one way to the service: openapi-fetch over the paths generated from the operator
 * OpenAPI document (@tokenops/client's OperatorPaths), so the console can call nothing the operator
 * API does not describe. The JWT lives in this module's memory only: a reload signs out.
 */
import createClient from 'openapi-fetch';
import type { OperatorComponents, OperatorPaths } from '@tokenops/client';

export type Schemas = OperatorComponents['schemas'];

export const api = createClient<OperatorPaths>({ baseUrl: '/api/v1' });

let token: string | undefined;
/** How the signed-in wallet signs a text (its UTF-8 bytes, ed25519, base58): kept for approvals. */
let signer: ((text: string) => Promise<string>) | undefined;
api.use({
  onRequest({ request }) {
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
});

export const signedIn = (): boolean => token !== undefined;
export function setToken(value: string | undefined): void {
  token = value;
  if (value === undefined) signer = undefined;
}
export const bearer = (): string | undefined => token;

/** A refusal of the service, with the contract's error code and message. */
export class Refusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The data of an answer; its error envelope (or status) thrown as a Refusal. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || data === undefined) {
    const body = (error ?? {}) as { error?: string; message?: string };
    throw new Refusal(body.error ?? String(response.status), body.message ?? response.statusText);
  }
  return data;
}

/** Signs in: a challenge from the service, signed by `sign` (ed25519 over its UTF-8 text), for a JWT. */
export async function signIn(
  wallet: string,
  sign: (message: Uint8Array) => Promise<Uint8Array>,
  encode: (bytes: Uint8Array) => string,
): Promise<void> {
  const signText = async (text: string) => encode(await sign(new TextEncoder().encode(text)));
  const { message } = await ok(api.POST('/orchestrator/auth/challenge', { body: { wallet } }));
  const signature = await signText(message);
  const answer = await ok(api.POST('/orchestrator/auth/token', { body: { wallet, message, signature } }));
  setToken(answer.token);
  signer = signText;
}

/** The signed-in wallet's signature (base58) of a text, signed as the sign-in challenge was. */
export function signWithWallet(text: string): Promise<string> {
  if (!signer) throw new Error('Sign in again: the page has no wallet to sign with.');
  return signer(text);
}
