/**
 * `tokenops-mcp`: the MCP server on stdio, for an agent framework that starts it as a child process.
 * TOKENOPS_API_KEY is the agent's key (required); TOKENOPS_URL the service (default
 * http://127.0.0.1:8080). Stdout carries the protocol only; anything else goes to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { httpAgentApi } from './agent-api';
import { createMcpServer } from './server';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** Exit status of a missing or unusable setting. */
export const EXIT_USAGE = 2;

export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const key = env.TOKENOPS_API_KEY?.trim();
  if (!key) {
    console.error(
      'tokenops-mcp: TOKENOPS_API_KEY is not set: set it to the agent API key (from register), and ' +
        `TOKENOPS_URL to the service (default ${DEFAULT_URL}).`,
    );
    process.exit(EXIT_USAGE);
  }
  const url = env.TOKENOPS_URL?.trim() || DEFAULT_URL;
  if (!/^https?:\/\/[^/]/i.test(url)) {
    console.error(`tokenops-mcp: TOKENOPS_URL must be an http(s) URL, not ${JSON.stringify(url)}.`);
    process.exit(EXIT_USAGE);
  }
  const server = createMcpServer(httpAgentApi({ url, key }));
  await server.connect(new StdioServerTransport());
}
