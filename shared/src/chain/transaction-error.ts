/**
 * A transaction's error as Solana's JSON-RPC writes it (serde's form of `TransactionError`): a
 * fieldless error is its name (`"BlockhashNotFound"`), the others an object with one key
 * (`{"InstructionError": [0, {"Custom": 1}]}`, `{"InsufficientFundsForRent": {"account_index": 2}}`).
 * Wallets and web3.js read it so; the local chain node answers with it (simulateTransaction).
 */
export type TransactionErrorJson = string | Record<string, unknown>;

/** LiteSVM's fieldless transaction errors, by their enum value (litesvm/dist/internal.d.ts). */
export const TRANSACTION_ERRORS =
  'AccountInUse AccountLoadedTwice AccountNotFound ProgramAccountNotFound InsufficientFundsForFee InvalidAccountForFee AlreadyProcessed BlockhashNotFound CallChainTooDeep MissingSignatureForFee InvalidAccountIndex SignatureFailure InvalidProgramForExecution SanitizeFailure ClusterMaintenance AccountBorrowOutstanding WouldExceedMaxBlockCostLimit UnsupportedVersion InvalidWritableAccount WouldExceedMaxAccountCostLimit WouldExceedAccountDataBlockLimit TooManyAccountLocks AddressLookupTableNotFound InvalidAddressLookupTableOwner InvalidAddressLookupTableData InvalidAddressLookupTableIndex InvalidRentPayingAccount WouldExceedMaxVoteCostLimit WouldExceedAccountDataTotalLimit MaxLoadedAccountsDataSizeExceeded ResanitizationNeeded InvalidLoadedAccountsDataSizeLimit UnbalancedTransaction ProgramCacheHitMaxLimit CommitCancelled'.split(
    ' ',
  );

/** LiteSVM's fieldless instruction errors, by their enum value. */
const INSTRUCTION_ERRORS =
  'GenericError InvalidArgument InvalidInstructionData InvalidAccountData AccountDataTooSmall InsufficientFunds IncorrectProgramId MissingRequiredSignature AccountAlreadyInitialized UninitializedAccount UnbalancedInstruction ModifiedProgramId ExternalAccountLamportSpend ExternalAccountDataModified ReadonlyLamportChange ReadonlyDataModified DuplicateAccountIndex ExecutableModified RentEpochModified NotEnoughAccountKeys AccountDataSizeChanged AccountNotExecutable AccountBorrowFailed AccountBorrowOutstanding DuplicateAccountOutOfSync InvalidError ExecutableDataModified ExecutableLamportChange ExecutableAccountNotRentExempt UnsupportedProgramId CallDepth MissingAccount ReentrancyNotAllowed MaxSeedLengthExceeded InvalidSeeds InvalidRealloc ComputationalBudgetExceeded PrivilegeEscalation ProgramEnvironmentSetupFailure ProgramFailedToComplete ProgramFailedToCompile Immutable IncorrectAuthority AccountNotRentExempt InvalidAccountOwner ArithmeticOverflow UnsupportedSysvar IllegalOwner MaxAccountsDataAllocationsExceeded MaxAccountsExceeded MaxInstructionTraceLengthExceeded BuiltinProgramsMustConsumeComputeUnits BorshIoError'.split(
    ' ',
  );

type Native = { index?: number; accountIndex?: number; code?: number; msg?: string; err?: () => unknown };

function instructionErrorJson(err: unknown): TransactionErrorJson {
  if (typeof err === 'number') return INSTRUCTION_ERRORS[err] ?? `InstructionError ${err}`;
  const e = err as Native;
  if (typeof e.code === 'number') return { Custom: e.code };
  if (typeof e.msg === 'string') return { BorshIoError: e.msg };
  return String(err);
}

/** LiteSVM's error (FailedTransactionMetadata.err()) in Solana's JSON form. */
export function transactionErrorJson(err: unknown): TransactionErrorJson {
  if (typeof err === 'number') return TRANSACTION_ERRORS[err] ?? `TransactionError ${err}`;
  const e = err as Native;
  const kind = (err as object | null)?.constructor?.name ?? '';
  if (typeof e.err === 'function') return { InstructionError: [e.index, instructionErrorJson(e.err())] };
  if (kind.endsWith('DuplicateInstruction')) return { DuplicateInstruction: e.index };
  if (kind.endsWith('InsufficientFundsForRent'))
    return { InsufficientFundsForRent: { account_index: e.accountIndex } };
  if (kind.endsWith('ProgramExecutionTemporarilyRestricted'))
    return { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex } };
  return String(err);
}
