/**
 * The fast legacy-message compiler against @solana/kit's own: the same instructions, decoded back,
 * name the same accounts with the same roles, the same programs and the same data. And the
 * signatures verify.
 */
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  getCompiledTransactionMessageDecoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
} from '@solana/kit';
import bs58 from 'bs58';
import { createPublicKey, verify } from 'node:crypto';
import { generateSigner } from './keys';
import {
  MEMO_PROGRAM_ADDRESS,
  compileLegacyMessage,
  signTransaction,
  transferWithFeeInstructions,
} from './transactions';

const decode = getCompiledTransactionMessageDecoder();
const BLOCKHASH = 'CmpNeggWJ4JaWJeJ8YKN1Zypmk7uvQq3PECGUCAEMbky';

/** What a compiled message means: header counts, and per account its role; instructions resolved. */
function meaning(bytes: Uint8Array) {
  const m = decode.decode(bytes);
  if (!('instructions' in m)) throw new Error('not a legacy message');
  const keys = m.staticAccounts;
  const { numSignerAccounts, numReadonlySignerAccounts, numReadonlyNonSignerAccounts } = m.header;
  const role = (i: number) => {
    const signer = i < numSignerAccounts;
    const writable = signer
      ? i < numSignerAccounts - numReadonlySignerAccounts
      : i < keys.length - numReadonlyNonSignerAccounts;
    return `${signer ? 's' : '-'}${writable ? 'w' : 'r'}`;
  };
  return {
    header: m.header,
    feePayer: keys[0],
    accounts: Object.fromEntries(keys.map((k, i) => [k, role(i)])),
    blockhash: m.lifetimeToken,
    instructions: m.instructions.map((ix) => ({
      program: keys[ix.programAddressIndex],
      accounts: (ix.accountIndices ?? []).map((i) => keys[i]),
      data: Buffer.from(ix.data ?? []).toString('hex'),
    })),
  };
}

/** A transfer-with-fee between fresh wallets, with its payer and agent. */
async function aTransfer(net: bigint, fee: bigint) {
  const payer = generateSigner();
  const agent = generateSigner();
  const instructions = await transferWithFeeInstructions(
    {
      from: agent,
      to: generateSigner().address,
      mint: generateSigner().address,
      decimals: 6,
      net,
      fee,
      treasury: generateSigner().address,
      reference: 'intent-1',
    },
    { feePayer: payer.address, accountKnown: async () => false },
  );
  return { payer, agent, instructions };
}

describe('the legacy message compiler', () => {
  it('means exactly what @solana/kit compiles from the same instructions', async () => {
    const { payer, instructions } = await aTransfer(998n, 2n);
    const ours = compileLegacyMessage(instructions, payer.address, BLOCKHASH);
    const kit = compileTransaction(
      pipe(
        createTransactionMessage({ version: 'legacy' }),
        (m) => setTransactionMessageFeePayer(payer.address as Address, m),
        (m) =>
          setTransactionMessageLifetimeUsingBlockhash(
            { blockhash: BLOCKHASH as Blockhash, lastValidBlockHeight: 0n },
            m,
          ),
        (m) => appendTransactionMessageInstructions(instructions, m),
      ),
    );
    expect(meaning(ours)).toEqual(meaning(new Uint8Array(kit.messageBytes)));
    expect(meaning(ours).instructions).toHaveLength(5);
  });

  it('signs for the fee payer and every signer; the signatures verify and the first is the id', async () => {
    const { payer, agent, instructions } = await aTransfer(1n, 0n);
    const tx = signTransaction(instructions, payer, [agent], {
      blockhash: BLOCKHASH,
      lastValidBlockHeight: 9n,
    });
    const message = tx.wire.subarray(1 + 64 * 2);
    expect(tx.wire[0]).toBe(2);
    for (const [i, signer] of [payer, agent].entries()) {
      const key = createPublicKey({
        key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(signer.publicKey).toString('base64url') },
        format: 'jwk',
      });
      expect(verify(null, message, key, tx.wire.subarray(1 + 64 * i, 65 + 64 * i))).toBe(true);
    }
    expect(tx.signature).toBe(bs58.encode(tx.wire.subarray(1, 65)));
    expect(() =>
      signTransaction(instructions, payer, [], { blockhash: BLOCKHASH, lastValidBlockHeight: 9n }),
    ).toThrow(/no signer/);
  });
});

describe('a transfer with a memo digest (the variant contract)', () => {
  const memoTexts = (instructions: Awaited<ReturnType<typeof transferWithFeeInstructions>>) =>
    instructions
      .filter((ix) => ix.programAddress === MEMO_PROGRAM_ADDRESS)
      .map((ix) => Buffer.from(ix.data ?? []).toString('utf8'));
  const base = {
    to: generateSigner().address,
    mint: generateSigner().address,
    decimals: 6,
    net: 998n,
    fee: 2n,
    treasury: generateSigner().address,
    reference: 'intent:1',
  };
  const chain = { feePayer: generateSigner().address, accountKnown: async () => true };

  it('carries the digest in a memo instruction after the reference', async () => {
    const digest = 'a'.repeat(64);
    const ixs = await transferWithFeeInstructions({ ...base, from: generateSigner(), memo: digest }, chain);
    expect(memoTexts(ixs)).toEqual(['intent:1', digest]);
  });

  it('carries only the reference without one', async () => {
    const ixs = await transferWithFeeInstructions({ ...base, from: generateSigner() }, chain);
    expect(memoTexts(ixs)).toEqual(['intent:1']);
  });
});
