/**
 * The MCP server: lists the tools of the table (tools.ts) and runs each as one call of the agent API.
 * The low-level `Server` of the SDK rather than `McpServer.registerTool`: registerTool takes Zod
 * schemas and validates with them, while these tools hand the contract's JSON Schemas to the agent as
 * they are and leave validation to the API (so an MCP call is checked exactly as an HTTP call is).
 */
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { AgentApi, ApiReply } from './agent-api';
import { TOOLS, type ToolRow } from './tools';

export const SERVER_INFO = { name: 'tokenops', version: '0.1.0' } as const;

const INSTRUCTIONS =
  'Token operations for an agent under limits its operator sets: transfer, swap, deposit and withdraw ' +
  'spend (each checked against the allow-list, the per-transaction limit, the rolling 24-hour limit and ' +
  'the hourly transaction cap); simulate, balance, limits, history, tokens, venues, pools and webhooks spend ' +
  'nothing. Amounts are human ' +
  'units with at most 6 decimals; a decimal string ("12.5") keeps every digit. A refused call is a tool ' +
  'error whose text starts with the error code. A spend the operator holds for a person to approve is ' +
  'not refused: its text starts with approval_required and says how to learn the outcome later.';

export function createMcpServer(api: AgentApi): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map(({ name, description, inputSchema, outputSchema, annotations }) => ({
      name,
      title: annotations.title,
      description,
      inputSchema,
      outputSchema,
      annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `No tool ${request.params.name}.`);
    return callTool(api, tool, request.params.arguments ?? {});
  });
  return server;
}

/** One tool call: the API's answer as the result, a refusal (any error) as a tool error, never a throw. */
export async function callTool(
  api: AgentApi,
  tool: ToolRow,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const generatedKey = tool.spend && args.idempotency_key === undefined ? `mcp-${randomUUID()}` : undefined;
  const retry = generatedKey
    ? ` The call used idempotency_key ${generatedKey}: pass it to retry this same operation.`
    : '';
  let reply: ApiReply;
  try {
    reply =
      tool.method === 'GET'
        ? await api.call('GET', `${tool.path}${query(args)}`)
        : await api.call('POST', tool.path, generatedKey ? { ...args, idempotency_key: generatedKey } : args);
  } catch (err) {
    const reason = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : '';
    return failure(`unreachable: the agent API did not answer (${reason}).${retry}`);
  }
  const body = parsed(reply.text);
  if (reply.status >= 200 && reply.status < 300 && isObject(body))
    return { content: [{ type: 'text', text: reply.text }], structuredContent: body };
  if (isObject(body) && body.error === 'approval_required')
    return awaitingPerson(tool, String(body.message ?? ''), generatedKey ?? String(args.idempotency_key));
  if (isObject(body) && typeof body.error === 'string') {
    const details = Array.isArray(body.details) ? ` Details: ${JSON.stringify(body.details)}` : '';
    return failure(`${body.error}: ${String(body.message ?? '')}${details}${retry}`);
  }
  return failure(
    `http_${reply.status}: the agent API answered ${reply.status} without an error body.${retry}`,
  );
}

const failure = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/**
 * A spend held for a person: nothing moved yet, nothing was refused. A tool error all the same (the
 * result has no confirmed body for the tool's output schema), whose text tells the model what happens
 * and how to ask again later with the same key.
 */
const awaitingPerson = (tool: ToolRow, message: string, key: string): CallToolResult =>
  failure(
    `approval_required: this ${tool.name} awaits a person: the operator's approvers must approve it before it ` +
      `runs; nothing has moved yet and nothing was refused. ${message} To learn the outcome later, call ` +
      `${tool.name} again with the same arguments and idempotency_key ${key} (it runs once whatever the ` +
      'number of calls): it answers approval_required while the approval is pending, the confirmed result ' +
      'once approved and executed, approval_rejected or approval_expired if it was not approved in time.',
  );

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function query(args: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(args))
    if (value !== undefined) params.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
