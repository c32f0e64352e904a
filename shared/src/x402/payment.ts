/**
 * The x402 `exact` payment on Solana, as @x402/svm's client builds it (scheme_exact_svm.md): a
 * version-0 transaction whose fee payer is the facilitator (`extra.feePayer`), holding a compute-unit
 * limit, a compute-unit price, one TransferChecked of exactly `amount` from the agent's associated
 * token account to `payTo`'s, and a memo (the seller's `extra.memo`, else a random nonce), signed by
 * the agent only. The facilitator signs as fee payer and sends it; its id on chain is the facilitator's
 * signature, so the service knows the payment by the agent's signature (the transaction's second).
 */
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
  type Instruction,
  type SignatureBytes,
} from '@solana/kit';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import bs58 from 'bs58';
import { randomBytes } from 'node:crypto';
import { ata, MEMO_PROGRAM_ADDRESS } from '../chain/transactions';
import type { Signer } from '../chain/keys';

const COMPUTE_BUDGET_PROGRAM = address('ComputeBudget111111111111111111111111111111');
/** @x402/svm's client: 20,000 compute units at 1 micro-lamport each. */
const COMPUTE_UNIT_LIMIT = 20_000;
const COMPUTE_UNIT_PRICE_MICROLAMPORTS = 1n;

/** A signed payment: the header to send, and what finds it on chain after a crash. */
export interface SignedPayment {
  /** The PAYMENT-SIGNATURE header's value (base64 JSON of the payment payload). */
  header: string;
  /** The agent's signature (base58): the payment's second signature. */
  signature: string;
  /** Past this block height it can no longer land. */
  lastValidBlockHeight: bigint;
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
};

/** Builds and signs (as `agent`) the payment of `requirement`; nothing is sent. */
export async function signPayment(input: {
  paymentRequired: PaymentRequired;
  requirement: PaymentRequirements;
  decimals: number;
  agent: Signer;
  blockhash: { blockhash: string; lastValidBlockHeight: bigint };
}): Promise<SignedPayment> {
  const { requirement: r, agent } = input;
  const feePayer = r.extra.feePayer as string;
  const sellerMemo = typeof r.extra.memo === 'string' && r.extra.memo !== '' ? r.extra.memo : undefined;
  const instructions: Instruction[] = [
    { programAddress: COMPUTE_BUDGET_PROGRAM, data: new Uint8Array([2, ...u32(COMPUTE_UNIT_LIMIT)]) },
    {
      programAddress: COMPUTE_BUDGET_PROGRAM,
      data: new Uint8Array([3, ...u64(COMPUTE_UNIT_PRICE_MICROLAMPORTS)]),
    },
    getTransferCheckedInstruction({
      source: await ata(agent.address, r.asset),
      mint: address(r.asset),
      destination: await ata(r.payTo, r.asset),
      authority: createNoopSigner(address(agent.address)),
      amount: BigInt(r.amount),
      decimals: input.decimals,
    }),
    {
      programAddress: MEMO_PROGRAM_ADDRESS,
      data: new TextEncoder().encode(sellerMemo ?? randomBytes(16).toString('hex')),
    },
  ];
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(feePayer), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        {
          blockhash: input.blockhash.blockhash as Blockhash,
          lastValidBlockHeight: input.blockhash.lastValidBlockHeight,
        },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const compiled = compileTransaction(message);
  const signature = agent.sign(new Uint8Array(compiled.messageBytes));
  const transaction = {
    ...compiled,
    signatures: { ...compiled.signatures, [agent.address]: signature as SignatureBytes },
  };
  const payload: PaymentPayload = {
    x402Version: 2,
    resource: input.paymentRequired.resource,
    accepted: r,
    payload: { transaction: getBase64EncodedWireTransaction(transaction) },
    ...(input.paymentRequired.extensions && { extensions: input.paymentRequired.extensions }),
  };
  return {
    header: encodePaymentSignatureHeader(payload),
    signature: bs58.encode(signature),
    lastValidBlockHeight: input.blockhash.lastValidBlockHeight,
  };
}
