/** The caller, as the API authenticated it: the agent and its key's digest (checked again on the write model). */
export interface Caller {
  agentId: string;
  keyDigest: string;
}
