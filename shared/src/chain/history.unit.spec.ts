/** The chain's error texts in Solana's JSON form, as getSignaturesForAddress and getTransaction answer them. */
import { errorJson } from './history';

describe('a transaction error in JSON', () => {
  it('is an instruction error with its custom code, in either form the chain reports it', () => {
    expect(errorJson('instruction 2: custom program error: 0x1')).toEqual({
      InstructionError: [2, { Custom: 1 }],
    });
    expect(
      errorJson('TransactionErrorInstructionError { index: 2, error: InstructionErrorCustom { code: 17 } }'),
    ).toEqual({ InstructionError: [2, { Custom: 17 }] });
  });

  it('names an instruction error without a code', () => {
    expect(errorJson('TransactionErrorInstructionError { index: 0, error: InvalidAccountData }')).toEqual({
      InstructionError: [0, 'InvalidAccountData'],
    });
  });

  it('keeps a transaction-level error as its name', () => {
    expect(errorJson('InsufficientFundsForFee')).toBe('InsufficientFundsForFee');
  });
});
