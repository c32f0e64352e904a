/**
 * The x402 resource port: one request to a paid resource and what of its answer is kept. The
 * application asks through it (Context.resource); resource.ts is the adapter (HTTPS through the SSRF
 * guard, a deadline, the answer capped).
 */

/** What of a resource's answer is kept (and answered to the agent, and kept for its replays). */
export const RESOURCE_BODY_CAP = 64 * 1024;

export interface ResourceRequest {
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface ResourceAnswer {
  status: number;
  /** Lower-case names; content-type and the x402 headers. */
  headers: Record<string, string>;
  body: string;
  /** Whether the body was cut at RESOURCE_BODY_CAP bytes. */
  truncated?: boolean;
}
