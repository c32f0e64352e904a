export { httpAgentApi, type AgentApi, type ApiReply, type HttpAgentApiOptions } from './agent-api';
export { TOOLS, type ToolRow } from './tools';
export { SERVER_INFO, callTool, createMcpServer } from './server';
