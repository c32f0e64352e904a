/**
 * POST /mcp: the MCP server (packages/mcp) over Streamable HTTP, for an agent framework that speaks
 * MCP over HTTP. Authenticated by the agent's key (`Authorization: Bearer <key>`; a missing or wrong
 * key is the contract's 401). Stateless: each request gets a server and a transport of its own
 * (no session, plain JSON answers). The tools call this same API over loopback HTTP with the same
 * key, so every check of the agent API (validation, idempotency, limits, rate limit) applies to a
 * tool call exactly as to the HTTP call it makes. Each MCP message counts once against the agent's
 * rate limit: a tool call as that API call, any other message (initialize, tools/list) here. A spend
 * tool called with a key the agent held (revoked, rotated out) is recorded as a refused spend, as on
 * its route (http/auth.ts, recordingRefusedKeys).
 */
import { Router, type Request } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Action } from '@tokenops/shared';
import { TOOLS, createMcpServer, httpAgentApi } from '@tokenops/mcp';
import type { ApiDeps } from '../deps';
import { authenticateAgent, bearer, recordingRefusedKeys } from '../http/auth';
import { bodyFailure } from '../http/body';
import { OWN_CALL_HEADER, OWN_CALL_TOKEN } from '../http/rate-limit';

export const MCP_PATH = '/mcp';

export function mcpRoutes(deps: ApiDeps): Router {
  const router = Router();
  router.post(MCP_PATH, async (req, res) => {
    bodyFailure(req); // a body that could not be read: validation_error, as on every route
    const calls = onlyToolCalls(req.json);
    const authenticate = () => authenticateAgent(req, deps, { count: !calls });
    // A spend tool called with a key the agent held (revoked, rotated out) is recorded as on its route.
    const spend = spendCall(req.json);
    if (spend) await recordingRefusedKeys(req, deps, spend.action, authenticate, spend.args);
    else await authenticate();
    const server = createMcpServer(
      httpAgentApi({
        url: ownUrl(req),
        key: bearer(req)!,
        // A reference read of a tool is counted here (below), not again at the API's own address.
        headers: { 'x-request-id': req.id, [OWN_CALL_HEADER]: OWN_CALL_TOKEN },
      }),
    );
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // The body as the API's JSON reader read it (at most 64 KiB; numbers a float cannot hold kept as text).
    await transport.handleRequest(req, res, req.json);
  });
  // Stateless: no stream to open (GET) and no session to end (DELETE).
  router.all(MCP_PATH, (req, res) => {
    bodyFailure(req);
    res
      .status(405)
      .setHeader('allow', 'POST')
      .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST only.' }, id: null });
  });
  return router;
}

const TOOL_NAMES = new Set(TOOLS.filter((t) => !t.public).map((t) => t.name));

/**
 * Whether every JSON-RPC message of the body is a call of one of the tools whose API call takes the key
 * (each makes exactly one API call, which counts it); anything else (a call of no tool, or of a
 * reference read, which the API does not count) counts here.
 */
function onlyToolCalls(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.length > 0 && messages.every(isToolCall);
}

/** The one spend tool a body calls, with its action and arguments; none for anything else. */
function spendCall(body: unknown): { action: Action; args: unknown } | undefined {
  const m = body as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;
  if (m?.method !== 'tools/call') return undefined;
  const tool = TOOLS.find((t) => t.spend && t.name === m.params?.name);
  return tool && { action: tool.name as Action, args: m.params?.arguments };
}

function isToolCall(message: unknown): boolean {
  const m = message as { method?: unknown; params?: { name?: unknown } } | null;
  return m?.method === 'tools/call' && typeof m.params?.name === 'string' && TOOL_NAMES.has(m.params.name);
}

/** This API as the request reached it: the local end of its connection (the API serves plain HTTP). */
export function ownUrl(req: Request): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  const host = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${req.socket.localPort}`;
}
