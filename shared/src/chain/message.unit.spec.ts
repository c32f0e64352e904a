/**
 * The wire-message reader against @solana/kit's decoder: a legacy message (the service's own
 * transfer) and a v0 message with an address table lookup read to the same header, keys, blockhash,
 * instructions and lookups; which keys are writable follows the header.
 */
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  getCompiledTransactionMessageDecoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
} from '@solana/kit';
import { generateSigner } from './keys';
import { isWritableIndex, readMessage } from './message';
import { compileLegacyMessage, transferWithFeeInstructions } from './transactions';

const kit = getCompiledTransactionMessageDecoder();
const BLOCKHASH = 'CmpNeggWJ4JaWJeJ8YKN1Zypmk7uvQq3PECGUCAEMbky';

async function transfer() {
  const payer = generateSigner();
  const agent = generateSigner();
  const instructions = await transferWithFeeInstructions(
    {
      from: agent,
      to: generateSigner().address,
      mint: generateSigner().address,
      decimals: 6,
      net: 990n,
      fee: 10n,
      treasury: generateSigner().address,
      reference: 'intent-1',
    },
    { feePayer: payer.address, accountKnown: async () => false },
  );
  return { payer, agent, instructions };
}

/** Our reading in kit's terms, to compare with kit's. */
function asKit(bytes: Uint8Array) {
  const m = readMessage(bytes);
  return {
    version: m.version,
    header: {
      numSignerAccounts: m.header.numRequiredSignatures,
      numReadonlySignerAccounts: m.header.numReadonlySignedAccounts,
      numReadonlyNonSignerAccounts: m.header.numReadonlyUnsignedAccounts,
    },
    staticAccounts: m.accountKeys,
    lifetimeToken: m.recentBlockhash,
    instructions: m.instructions.map((ix) => ({
      programAddressIndex: ix.programIdIndex,
      accountIndices: ix.accounts,
      data: Buffer.from(ix.data).toString('hex'),
    })),
    lookups: m.addressTableLookups.map((l) => ({
      lookupTableAddress: l.accountKey,
      writableIndexes: l.writableIndexes,
      readonlyIndexes: l.readonlyIndexes,
    })),
  };
}

function kitReading(bytes: Uint8Array) {
  const m = kit.decode(bytes) as ReturnType<typeof kit.decode> & {
    staticAccounts: string[];
    instructions: { programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }[];
    addressTableLookups?: {
      lookupTableAddress: string;
      writableIndexes: number[];
      readonlyIndexes: number[];
    }[];
  };
  return {
    version: m.version,
    header: m.header,
    staticAccounts: m.staticAccounts,
    lifetimeToken: m.lifetimeToken,
    instructions: m.instructions.map((ix) => ({
      programAddressIndex: ix.programAddressIndex,
      accountIndices: ix.accountIndices ?? [],
      data: Buffer.from(ix.data ?? []).toString('hex'),
    })),
    lookups: (m.addressTableLookups ?? []).map((l) => ({
      lookupTableAddress: l.lookupTableAddress,
      writableIndexes: l.writableIndexes,
      readonlyIndexes: l.readonlyIndexes,
    })),
  };
}

describe('the wire-message reader', () => {
  it('reads a legacy message as @solana/kit does', async () => {
    const { payer, instructions } = await transfer();
    const bytes = compileLegacyMessage(instructions, payer.address, BLOCKHASH);
    expect(asKit(bytes)).toEqual(kitReading(bytes));
    expect(readMessage(bytes).instructions).toHaveLength(5);
  });

  it('reads a v0 message with an address table lookup as @solana/kit does', async () => {
    const { payer, instructions } = await transfer();
    const table = generateSigner().address as Address;
    // The treasury's token account and the mint come from the table.
    const transferIx = instructions.find((ix) => (ix.accounts?.length ?? 0) === 4)!;
    const looked = [transferIx.accounts![1]!.address];
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(payer.address as Address, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: BLOCKHASH as Blockhash, lastValidBlockHeight: 0n },
          m,
        ),
      (m) => appendTransactionMessageInstructions(instructions, m),
      (m) => compressTransactionMessageUsingAddressLookupTables(m, { [table]: looked }),
    );
    const bytes = new Uint8Array(compileTransaction(message).messageBytes);
    const ours = asKit(bytes);
    expect(ours).toEqual(kitReading(bytes));
    expect(ours.version).toBe(0);
    expect(ours.lookups).toHaveLength(1);
    expect(ours.lookups[0]!.lookupTableAddress).toBe(table);
  });

  it('tells writable keys from read-only ones by the header', async () => {
    const { payer, agent, instructions } = await transfer();
    const m = readMessage(compileLegacyMessage(instructions, payer.address, BLOCKHASH));
    const writable = m.accountKeys.filter((_, i) => isWritableIndex(m, i));
    expect(writable[0]).toBe(payer.address);
    expect(writable).not.toContain(agent.address); // signs, but only reads (the token program writes)
    expect(writable).not.toContain('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
    expect(writable).toHaveLength(4); // the payer, the source, the recipient's and the treasury's accounts
  });

  it('refuses a message that ends early', () => {
    expect(() => readMessage(new Uint8Array([1, 0, 1, 3, 0]))).toThrow(RangeError);
  });
});
