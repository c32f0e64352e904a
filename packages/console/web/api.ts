/**
 * The console's one way to the service: openapi-fetch over the paths generated from the operator
 * OpenAPI document (@tokenops/client's OperatorPaths), so the console can call nothing the operator
 * API does not describe. The session (session.ts) adds its token to each call; a 401 on a call made
 * with it ends the session, and the page asks to sign in again.
 */
import createClient from 'openapi-fetch';
import type { OperatorComponents, OperatorPaths } from '@tokenops/client';
import { session, sessionEnded } from './session';

export type Schemas = OperatorComponents['schemas'];
type ErrorBody = Schemas['ErrorBody'];

export const api = createClient<OperatorPaths>({ baseUrl: '/api/v1' });

api.use({
  onRequest({ request }) {
    const token = session()?.token;
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
  onResponse({ request, response }) {
    if (response.status === 401 && request.headers.has('authorization')) sessionEnded('expired');
    return response;
  },
});

/**
 * A refusal of the service: the contract's error code, its message and the fields it names
 * (`details`); or `unreachable` when no answer came at all.
 */
export class Refusal extends Error {
  constructor(
    readonly code: ErrorBody['error'] | 'unreachable' | 'failed' | 'proposed',
    message: string,
    readonly details: NonNullable<ErrorBody['details']> = [],
    readonly status = 0,
  ) {
    super(message);
  }
}

/** What a person reads when the service cannot be reached (the browser's "Failed to fetch"). */
export const UNREACHABLE =
  'The service cannot be reached: check that it is running and that this computer is online, then try again.';

/** The data of an answer; its error envelope (or status) thrown as a Refusal. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await call;
  } catch (err) {
    // fetch rejects with a TypeError when no answer came (the service down, the network gone).
    if (err instanceof TypeError) throw new Refusal('unreachable', UNREACHABLE);
    throw err;
  }
  const { data, error, response } = answer;
  if (error === undefined && data !== undefined) return data;
  const body = (error ?? {}) as Partial<ErrorBody>;
  if (typeof body.error === 'string')
    throw new Refusal(body.error, body.message ?? response.statusText, body.details ?? [], response.status);
  throw new Refusal(
    'failed',
    response.status >= 500
      ? `The service failed to answer (status ${response.status}); try again in a moment.`
      : `The service answered status ${response.status}.`,
    [],
    response.status,
  );
}

/** Signs in: a challenge from the service, signed by `sign` (ed25519 over its UTF-8 text), for a JWT. */
export async function signIn(
  wallet: string,
  sign: (message: Uint8Array) => Promise<Uint8Array>,
  encode: (bytes: Uint8Array) => string,
): Promise<{ token: string; expires_at: string }> {
  const { message } = await ok(api.POST('/orchestrator/auth/challenge', { body: { wallet } }));
  const signature = encode(await sign(new TextEncoder().encode(message)));
  return ok(api.POST('/orchestrator/auth/token', { body: { wallet, message, signature } }));
}
