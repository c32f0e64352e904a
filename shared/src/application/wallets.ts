/**
 * Custody of agent wallets. Each wallet's seed is sealed under the key-encryption key and kept in its
 * own stream, `wallet-<address>`; only the executor opens it, to sign that agent's transfers.
 */
import type { EventStore } from '../event-store/port';
import { generateSigner, signerFromSeed, type Signer } from '../chain/keys';
import type { KeyVault } from './credentials';
import { streams } from '../domain/events';

export class Wallets {
  private readonly open = new Map<string, Signer>();

  constructor(
    private readonly store: EventStore,
    private readonly vault: KeyVault,
  ) {}

  /** Creates a wallet; returns its address. The seed never leaves this process unsealed. */
  async create(): Promise<string> {
    const signer = generateSigner();
    await this.store.append(
      streams.wallet(signer.address),
      [
        {
          type: 'wallet.created',
          data: { address: signer.address, sealed_seed: this.vault.seal(signer.seed, signer.address) },
        },
      ],
      'no_stream',
    );
    return signer.address;
  }

  async inCustody(address: string): Promise<boolean> {
    return (
      this.open.has(address) ||
      (await this.store.readStream(streams.wallet(address), { maxCount: 1 })).length > 0
    );
  }

  async signer(address: string): Promise<Signer> {
    const known = this.open.get(address);
    if (known) return known;
    const [created] = await this.store.readStream(streams.wallet(address), { maxCount: 1 });
    if (!created) throw new Error(`no wallet ${address} in custody`);
    const signer = signerFromSeed(
      this.vault.open((created.data as { sealed_seed: string }).sealed_seed, address),
    );
    if (signer.address !== address) throw new Error(`wallet ${address} does not open to its own key`);
    this.open.set(address, signer);
    return signer;
  }
}
