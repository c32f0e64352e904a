/**
 * Credentials as the outside world sees them, and their at-rest forms.
 *
 *   API key          aw_<base58(agent id ‖ 32 random bytes)>_<crc32>   stored as SHA-256 digest only
 *   invitation code  inv_<base58(group id ‖ agent id ‖ 16 random bytes)>_<crc32>   digest of the secret only
 *
 * The prefix and the checksum let secret scanners recognise a leaked key, and let the service refuse
 * a mistyped one without any lookup. The ids inside let the service find the one stream to check.
 *
 * Wallet seeds and webhook signing secrets must be usable again, so they are sealed (AES-256-GCM)
 * under the key-encryption key from the environment, never stored in the clear.
 */
import bs58 from 'bs58';
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { ServiceError } from '../errors';
import { secretDigest } from '../domain/secrets';

const checksum = (body: string) => crc32(body).toString(16).padStart(8, '0');

function encode(prefix: string, parts: Uint8Array[]): string {
  const body = `${prefix}_${bs58.encode(Buffer.concat(parts))}`;
  return `${body}_${checksum(body)}`;
}

function decode(prefix: string, text: string, sizes: number[]): Uint8Array[] | undefined {
  if (typeof text !== 'string' || text.length > 400 || !text.startsWith(`${prefix}_`)) return undefined;
  const at = text.lastIndexOf('_');
  const body = text.slice(0, at);
  if (checksum(body) !== text.slice(at + 1)) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(body.slice(prefix.length + 1));
  } catch {
    return undefined;
  }
  if (bytes.length !== sizes.reduce((a, b) => a + b, 0)) return undefined;
  let offset = 0;
  return sizes.map((n) => bytes.subarray(offset, (offset += n)));
}

export interface MintedKey {
  apiKey: string;
  digest: string;
}

/** A new API key of the agent: its secret random, or the 32 bytes given (a proposal's, derived by the vault). */
export function mintApiKey(agentId: string, secret: Uint8Array = randomBytes(32)): MintedKey {
  const apiKey = encode('aw', [bs58.decode(agentId), secret]);
  return { apiKey, digest: secretDigest(apiKey) };
}

/** The agent a key claims to be, and the key's digest; undefined for anything that is not one of ours. */
export function readApiKey(apiKey: string): { agentId: string; digest: string } | undefined {
  const parts = decode('aw', apiKey, [32, 32]);
  return parts && { agentId: bs58.encode(parts[0]!), digest: secretDigest(apiKey) };
}

export interface MintedInvitation {
  code: string;
  digest: string;
}

/**
 * An invitation code for the agent: its secret random, or the 16 bytes given (a proposal's, derived
 * by the key vault, so the proposer can be shown the code once after the scheduler made it).
 */
export function mintInvitation(
  groupId: string,
  agentId: string,
  secret: Uint8Array = randomBytes(16),
): MintedInvitation {
  return {
    code: encode('inv', [bs58.decode(groupId), bs58.decode(agentId), secret]),
    digest: secretDigest(bs58.encode(secret)),
  };
}

export function readInvitation(code: string): { groupId: string; agentId: string; digest: string } {
  const parts = decode('inv', code, [32, 32, 16]);
  if (!parts) throw new ServiceError('invalid_invitation_code');
  return {
    groupId: bs58.encode(parts[0]!),
    agentId: bs58.encode(parts[1]!),
    digest: secretDigest(bs58.encode(parts[2]!)),
  };
}

/** A fresh opaque identifier shaped like a Solana address (group_config_pda, whitelist_entry_pda). */
export const newId = (): string => bs58.encode(randomBytes(32));

/** Seals and opens secrets under the key-encryption key (32 bytes). */
export class KeyVault {
  private readonly kek: Buffer;

  constructor(kek: Uint8Array) {
    if (kek.length !== 32) throw new Error('the key-encryption key must be 32 bytes');
    this.kek = Buffer.from(kek);
  }

  seal(secret: Uint8Array, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.kek, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(secret), cipher.final()]);
    return [
      'v1',
      iv.toString('base64'),
      body.toString('base64'),
      cipher.getAuthTag().toString('base64'),
    ].join('.');
  }

  /** Opens a sealed secret; `context` must match the one it was sealed with (binds it to its owner). */
  /**
   * 16 bytes only this vault's key makes for `context` (HMAC-SHA256 under the key-encryption key):
   * a secret that need not be stored to be shown once later (a delayed proposal's invitation code).
   */
  derive(context: string, bytes: 16 | 32 = 16): Uint8Array {
    return new Uint8Array(
      createHmac('sha256', this.kek).update(`derive:${context}`).digest().subarray(0, bytes),
    );
  }

  open(sealed: string, context: string): Uint8Array {
    const [version, iv, body, tag] = sealed.split('.');
    if (version !== 'v1' || !iv || !body || !tag) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.kek, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return new Uint8Array(Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]));
  }
}
