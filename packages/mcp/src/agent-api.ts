/**
 * The port the tools talk through: one call of the agent API, authenticated by the agent's key. The
 * fetch adapter below is the only implementation; a typed client can take its place later.
 */

/** An answer of the agent API: its status and its body's text (JSON, as the service wrote it). */
export interface ApiReply {
  status: number;
  text: string;
}

export interface AgentApi {
  /** `path` is below the API's origin, e.g. `/api/v1/limits`; a body is sent as JSON. */
  call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiReply>;
}

export interface HttpAgentApiOptions {
  /** The service's origin, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** The agent's API key, sent as `Authorization: Bearer <key>`. */
  key: string;
  /** More headers on every call (e.g. the request id of the MCP request that caused it). */
  headers?: Record<string, string>;
}

/** The agent API over HTTP with fetch. */
export function httpAgentApi({ url, key, headers = {} }: HttpAgentApiOptions): AgentApi {
  const origin = url.replace(/\/+$/, '');
  return {
    async call(method, path, body) {
      const res = await fetch(`${origin}${path}`, {
        method,
        headers: {
          ...headers,
          authorization: `Bearer ${key}`,
          accept: 'application/json',
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: res.status, text: await res.text() };
    },
  };
}
