/**
 * The agent API as MCP tools, one row per tool: its name, what it does, spends and is checked
 * against, its input and output schemas, its annotations (a host may approve the reads without asking)
 * and the HTTP call it makes. The schemas are the contract's own (shared/src/contract/agent/, the
 * reference reads' answers included), handed to the agent as they are but for `type` arrays, which `portable`
 * spells as `anyOf` (some hosts take a single type only); the API validates every call with them, so a
 * bad argument comes back as the contract's `validation_error`.
 */
// The contract alone, not the package's index: the index loads the whole core (about 2 s more at every
// start of the stdio server), and the published build (scripts/build.mjs) inlines what this reaches.
import {
  BalanceResponse,
  DepositRequest,
  DepositResponse,
  HistoryQuery,
  HistoryResponse,
  LimitsResponse,
  SimulateRequest,
  SimulateResponse,
  SwapRequest,
  SwapResponse,
  TransferRequest,
  TransferResponse,
  WithdrawRequest,
  WithdrawResponse,
  X402PayRequest,
  X402PayResponse,
  PoolsResponse,
  TokensResponse,
  VenuesResponse,
  WebhookListResponse,
} from '@tokenops/shared/contract';

/** A JSON Schema of an object (what MCP takes as a tool's input and output schema). */
export type ObjectSchema = { type: 'object' } & Record<string, unknown>;

/** What a host may conclude about a tool without calling it (MCP tool annotations). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

/** A read: changes nothing, answered from the service alone. */
const READ = (title: string): ToolAnnotations => ({ title, readOnlyHint: true, openWorldHint: false });
/**
 * A spend: moves tokens on the chain, which no call takes back (destructive). Not idempotent as a host
 * reads the hint (the same arguments twice): without `idempotency_key` each call is a new operation.
 */
const SPEND = (title: string): ToolAnnotations => ({
  title,
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
});

export interface ToolRow {
  name: string;
  description: string;
  inputSchema: ObjectSchema;
  outputSchema: ObjectSchema;
  annotations: ToolAnnotations;
  /** GET sends the arguments as the query string; POST as the JSON body. */
  method: 'GET' | 'POST';
  path: string;
  /** A spend: `idempotency_key` is optional here, and generated when absent. */
  spend: boolean;
  /** The API call takes no key (a reference read): the call counts against the rate limit at /mcp. */
  public?: true;
}

/** A spend's request schema with `idempotency_key` no longer required (the tool generates one). */
function keyOptional(schema: { required: readonly string[] }): ObjectSchema {
  return {
    ...object(schema),
    required: schema.required.filter((field) => field !== 'idempotency_key'),
  };
}

/** The reads without arguments take nothing. */
const NO_INPUT: ObjectSchema = { type: 'object', properties: {}, additionalProperties: false };

/**
 * A schema as every host takes it: each `type` array (`["string", "null"]`) spelled as `anyOf` branches
 * of one type each, which means the same; everything else as it is.
 */
export function portable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(portable);
  if (typeof schema !== 'object' || schema === null) return schema;
  const { type, description, ...rest } = schema as Record<string, unknown>;
  const inner = Object.fromEntries(
    Object.entries(rest).map(([keyword, value]) => [keyword, portableUnder(keyword, value)]),
  );
  const described = description === undefined ? {} : { description };
  if (!Array.isArray(type)) return { ...(type !== undefined && { type }), ...described, ...inner };
  return { ...described, anyOf: type.map((t: unknown) => ({ ...inner, type: t })) };
}

/** Maps of names to schemas keep their names; values (enum, const, default, examples) are data. */
function portableUnder(keyword: string, value: unknown): unknown {
  if (['properties', 'patternProperties', '$defs', 'definitions'].includes(keyword) && value)
    return Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, portable(sub)]));
  if (['enum', 'const', 'default', 'examples', 'required'].includes(keyword)) return value;
  return portable(value);
}
const object = (schema: object): ObjectSchema => portable(schema) as ObjectSchema;

const CHECKS =
  'the per-transaction limit (per_tx_limit), the rolling 24-hour limit (daily_limit: the value spent in the 24 hours ' +
  'before now) and the hourly transaction cap (hourly_tx_cap: operations in the last 60 minutes)';
const LIMITS_NOTE =
  'Limits and budgets are counted in the group base token (another token is valued at the aggregator quote). ' +
  'A refused call spends nothing and returns the error code (e.g. per_tx_limit_exceeded). ' +
  'A spend the operator holds for a person returns approval_required: it runs once approved; call again ' +
  'with the same idempotency_key later to learn the outcome.';
const KEY_NOTE =
  'Pass idempotency_key to make a retry safe (the same key never makes a second operation); ' +
  'when absent, a new key is generated for this call.';

export const TOOLS: readonly ToolRow[] = [
  {
    name: 'transfer',
    description:
      'Send `amount` of a token (the group base token unless `mint` names another) from the agent wallet to an ' +
      'allow-listed recipient `to`. Spends the amount; a 0.10 % protocol fee is deducted from it (`net_amount` ' +
      'reaches the recipient). Checked, in order: the recipient on the operator allow-list (an external ' +
      'recipient entry has a TTL and a budget shared by the group), ' +
      `${CHECKS}. ${LIMITS_NOTE} ${KEY_NOTE} Use simulate first to check without spending.`,
    inputSchema: keyOptional(TransferRequest),
    outputSchema: object(TransferResponse),
    method: 'POST',
    path: '/api/v1/transfer',
    spend: true,
    annotations: SPEND('Transfer tokens'),
  },
  {
    name: 'swap',
    description:
      'Swap `amount` of from_token (from_mint) for to_token (to_mint) through the aggregator the group ' +
      'allow-lists, with a minimum output: minimum_amount_out, or by default the quote less slippage_bps ' +
      '(default 50). Spends the amount of from_token. Checked: the aggregator on the allow-list, ' +
      `${CHECKS}. ${LIMITS_NOTE} ${KEY_NOTE}`,
    inputSchema: keyOptional(SwapRequest),
    outputSchema: object(SwapResponse),
    method: 'POST',
    path: '/api/v1/swap',
    spend: true,
    annotations: SPEND('Swap tokens'),
  },
  {
    name: 'deposit',
    description:
      'Deposit `amount` of a token (`mint`, by default the group base token) into an allow-listed lending venue ' +
      '(`lending_program`, see the venues the service lists); the agent receives the venue receipt token. ' +
      `Spends the amount. Checked: the venue on the allow-list, ${CHECKS}. ${LIMITS_NOTE} ${KEY_NOTE}`,
    inputSchema: keyOptional(DepositRequest),
    outputSchema: object(DepositResponse),
    method: 'POST',
    path: '/api/v1/deposit',
    spend: true,
    annotations: SPEND('Deposit into a lending venue'),
  },
  {
    name: 'withdraw',
    description:
      'Withdraw from an allow-listed lending venue (`lending_program`): redeem `amount` receipt tokens for the ' +
      'underlying token (`mint`), paid at the current rate (`received_amount`). Spends no limit headroom: ' +
      'withdrawals are exempt from the per-transaction and 24-hour limits, but the venue must be on the ' +
      'allow-list and the withdrawal counts toward the hourly transaction cap (hourly_tx_cap). ' +
      `A refused call moves nothing and returns the error code. ${KEY_NOTE}`,
    inputSchema: keyOptional(WithdrawRequest),
    outputSchema: object(WithdrawResponse),
    method: 'POST',
    path: '/api/v1/withdraw',
    spend: true,
    annotations: SPEND('Withdraw from a lending venue'),
  },
  {
    name: 'pay_for_resource',
    description:
      'Pay an HTTP resource that answers 402 Payment Required (x402 v2, scheme exact on Solana: an API call, a ' +
      'dataset, another agent service) and get its answer: the service requests `url` (https, public addresses ' +
      'only), reads the price, pays it as a transfer to the resource payee (payTo) and requests it again with the ' +
      'payment; `resource` holds the answer (status, content-type, body as text). Refused when the price is above ' +
      '`max_amount` (in the token the resource asks for). Spends the price plus a 0.10 % protocol fee on top. ' +
      'Checked like a transfer: the payee on the operator allow-list (an external recipient entry has a TTL and ' +
      `a budget shared by the group), ${CHECKS}. ${LIMITS_NOTE} ${KEY_NOTE}`,
    inputSchema: keyOptional(X402PayRequest),
    outputSchema: object(X402PayResponse),
    method: 'POST',
    path: '/api/v1/x402/pay',
    spend: true,
    annotations: SPEND('Pay for an HTTP resource (x402)'),
  },
  {
    name: 'simulate',
    description:
      'Dry-run a transfer of `amount` (to `to`, of `mint`): runs the same checks as transfer, in the same ' +
      `order (allow-list with TTL and budget, ${CHECKS}) and reports would_succeed, the reason (an error ` +
      'code) when it would not, the estimated fee and the remaining headroom. Spends nothing, submits nothing ' +
      'and counts toward no limit.',
    inputSchema: object(SimulateRequest),
    outputSchema: object(SimulateResponse),
    method: 'POST',
    path: '/api/v1/intents/simulate',
    spend: false,
    annotations: READ('Simulate a transfer'),
  },
  {
    name: 'balance',
    description:
      'Read the agent balances (token symbol to amount) with its limits and what remains of them now ' +
      '(daily_remaining, hourly_tx_remaining). Spends nothing.',
    inputSchema: NO_INPUT,
    outputSchema: object(BalanceResponse),
    method: 'GET',
    path: '/api/v1/balance',
    spend: false,
    annotations: READ('Balances and limits'),
  },
  {
    name: 'limits',
    description:
      'Read the limits the operator set for the agent (per_tx_limit, daily_limit over a rolling 24 hours, ' +
      'hourly_tx_cap), what remains of them now, and the agent group. Spends nothing.',
    inputSchema: NO_INPUT,
    outputSchema: object(LimitsResponse),
    method: 'GET',
    path: '/api/v1/limits',
    spend: false,
    annotations: READ('Limits'),
  },
  {
    name: 'history',
    description:
      'Read the agent most recent confirmed transfers and swaps of the last 24 hours, newest first ' +
      '(`limit`, default 20, at most 100). Spends nothing.',
    inputSchema: object(HistoryQuery),
    outputSchema: object(HistoryResponse),
    method: 'GET',
    path: '/api/v1/history',
    spend: false,
    annotations: READ('History'),
  },
  {
    name: 'tokens',
    description:
      'List the tokens of the registry: symbol, mint and decimals. A spend names a token by its mint ' +
      '(mint, from_mint, to_mint) and a swap by its symbols too. Spends nothing.',
    inputSchema: NO_INPUT,
    outputSchema: object(TokensResponse),
    method: 'GET',
    path: '/api/v1/tokens',
    spend: false,
    public: true,
    annotations: READ('Tokens'),
  },
  {
    name: 'venues',
    description:
      'List the lending venues: each lending_program (what deposit and withdraw take) with its name and ' +
      'the mints it takes. A venue must also be on the operator allow-list. Spends nothing.',
    inputSchema: NO_INPUT,
    outputSchema: object(VenuesResponse),
    method: 'GET',
    path: '/api/v1/venues',
    spend: false,
    public: true,
    annotations: READ('Lending venues'),
  },
  {
    name: 'pools',
    description:
      'Show the swap aggregator and, on the local chain, its pools (pair, fee in basis points, reserves): ' +
      'what a swap can trade and at about what rate. Spends nothing.',
    inputSchema: NO_INPUT,
    outputSchema: object(PoolsResponse),
    method: 'GET',
    path: '/api/v1/pools',
    spend: false,
    public: true,
    annotations: READ('Swap pools'),
  },
  {
    name: 'webhooks',
    description:
      'List the agent webhook subscriptions: id, URL, event types and status (never a secret). ' +
      'Spends nothing.',
    inputSchema: NO_INPUT,
    outputSchema: object(WebhookListResponse),
    method: 'GET',
    path: '/api/v1/webhooks',
    spend: false,
    annotations: READ('Webhook subscriptions'),
  },
];
