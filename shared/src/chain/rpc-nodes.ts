/**
 * Several RPC nodes of one cluster behind one caller (SOLANA_RPC_URL takes a list): a JsonRpcClient
 * each, judged by the rules of node-health.ts. A read goes to the healthiest node, and on to the next
 * when that one does not answer (a read asks again harmlessly); a transaction goes to every healthy
 * node at once, so one node away or behind does not hold it back. A node that does not answer, or
 * answers with an HTTP error, is set aside and asked again after its backoff; with more than one
 * node, each is asked its slot every second, which finds one that lags and brings back one that
 * answers again. With one node, nothing changes from one client: no probe, every call goes to it.
 *
 * A node is named by its host and port only (`/readyz`, metrics, errors): a provider's URL often
 * carries its API key in the path or the query, which is never shown.
 */
import { DependencyUnavailable } from '../errors/unavailable';
import { CHAIN, JsonRpcClient, RpcError, type RpcCaller } from './json-rpc';
import {
  answered,
  failed,
  freshNode,
  probeDue,
  readOrder,
  sendTargets,
  statuses,
  type HealthRules,
  type NodeState,
  type NodeStatus,
} from './node-health';

export interface RpcNodesOptions {
  /** How long a call waits for a node's answer before the node counts as failing (ms). */
  timeoutMs?: number;
  /** Slots a node may be behind the highest before it is set aside. */
  maxSlotLag?: number;
  /** How often each node is asked its slot, with more than one node (ms). */
  probeMs?: number;
}

/** A node as `/readyz` and the metrics report it. */
export interface NodeReport {
  node: string;
  healthy: boolean;
  /** Why it is set aside: its last failure, or how far it lags. */
  reason?: string;
  errors: number;
  slot?: number;
}

/** Readiness: no node is healthy; `report` says what each is. */
export class NoHealthyNode extends Error {
  constructor(readonly report: NodeReport[]) {
    super(`no RPC node is healthy: ${report.map((n) => `${n.node} (${n.reason})`).join(', ')}`);
    this.name = 'NoHealthyNode';
  }
}

const BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 15_000;

/** A node's name: its host and port, never its path, query or credentials. */
export function nodeName(url: string): string {
  return new URL(url).host;
}

interface Node {
  name: string;
  client: JsonRpcClient;
  state: NodeState;
  /** Text of its URL that must not be shown (path, query, credentials). */
  secrets: string[];
}

export class RpcNodes implements RpcCaller {
  private readonly nodes: Node[];
  private readonly rules: HealthRules;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly failureListeners: ((node: string) => void)[] = [];

  constructor(urls: readonly string[], options: RpcNodesOptions = {}) {
    if (urls.length === 0) throw new Error('no RPC node given');
    const names = new Set<string>();
    this.nodes = urls.map((url, i) => {
      const u = new URL(url);
      let name = nodeName(url);
      if (names.has(name)) name = `${name}#${i + 1}`; // two keys of one provider stay apart
      names.add(name);
      const secrets = [u.pathname.length > 1 ? u.pathname : '', u.search, u.username, u.password].filter(
        (s) => s.length > 1,
      );
      return {
        name,
        client: new JsonRpcClient(url, { ...(options.timeoutMs && { timeoutMs: options.timeoutMs }) }),
        state: freshNode(),
        secrets,
      };
    });
    this.rules = {
      maxSlotLag: options.maxSlotLag ?? 50,
      backoffMs: BACKOFF_MS,
      maxBackoffMs: MAX_BACKOFF_MS,
    };
    if (this.nodes.length > 1) {
      this.timer = setInterval(() => void this.probe(), options.probeMs ?? 1_000);
      this.timer.unref();
    }
  }

  /** Tells `listener` each time a node fails (a call not answered), by the node's name. */
  onFailure(listener: (node: string) => void): void {
    this.failureListeners.push(listener);
  }

  /** A read: from the healthiest node, and from the next when it does not answer. */
  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    let last: unknown;
    for (const i of readOrder(this.states(), Date.now(), this.rules)) {
      try {
        return await this.ask<T>(this.nodes[i]!, method, params);
      } catch (err) {
        if (!(err instanceof DependencyUnavailable)) throw err;
        last = err;
      }
    }
    throw last;
  }

  /**
   * A call that changes the chain (sendTransaction): to every healthy node at once. It resolves with
   * the first answer; when no node answered, it throws the first node's refusal (an RpcError), else
   * DependencyUnavailable. With several nodes, a node that says it already has the transaction
   * (AlreadyProcessed: another copy reached it first) counts as an answer: its confirmation decides.
   */
  async send<T>(method: string, params: unknown[]): Promise<T | undefined> {
    const targets = sendTargets(this.states(), Date.now(), this.rules).map((i) => this.nodes[i]!);
    if (targets.length === 1) return this.ask<T>(targets[0]!, method, params);
    const results = await Promise.allSettled(targets.map((node) => this.ask<T>(node, method, params)));
    const ok = results.find((r) => r.status === 'fulfilled');
    if (ok) return ok.value;
    const refusals = results.flatMap((r) =>
      r.status === 'rejected' && r.reason instanceof RpcError ? [r.reason] : [],
    );
    if (refusals.some((e) => /AlreadyProcessed/.test(e.message))) return undefined;
    throw refusals[0] ?? (results[0] as PromiseRejectedResult).reason;
  }

  /**
   * Readiness: each node not set aside is asked `getHealth` within `timeoutMs` (every node, when all
   * are set aside: one back makes the process ready at once); resolves with every node's report while
   * one at least is healthy, else throws with them.
   */
  async health(timeoutMs: number): Promise<NodeReport[]> {
    const due = probeDue(this.states(), Date.now());
    await Promise.all(
      (due.length > 0 ? due : this.nodes.map((_, i) => i)).map(async (i) => {
        const node = this.nodes[i]!;
        try {
          const result = await node.client.call<string>('getHealth', [], timeoutMs);
          if (result !== 'ok') throw new DependencyUnavailable('the chain', `getHealth answered ${result}`);
          node.state = answered(node.state);
        } catch (err) {
          this.fail(node, err);
        }
      }),
    );
    const report = this.report();
    if (!report.some((n) => n.healthy)) throw new NoHealthyNode(report);
    return report;
  }

  /** Every node: healthy or set aside (and why), its errors so far and its last slot. */
  report(): NodeReport[] {
    const status = statuses(this.states(), Date.now(), this.rules);
    return this.nodes.map((node, i) => ({
      node: node.name,
      healthy: status[i]!.healthy,
      ...(!status[i]!.healthy && { reason: describe(status[i]!) }),
      errors: node.state.errors,
      ...(node.state.slot !== undefined && { slot: node.state.slot }),
    }));
  }

  /** Asks each node whose backoff has passed its slot: the lag rule's input, and a failing node's retry. */
  async probe(): Promise<void> {
    await Promise.all(
      probeDue(this.states(), Date.now()).map(async (i) => {
        const node = this.nodes[i]!;
        try {
          const slot = await node.client.call<number>('getSlot', [{ commitment: 'confirmed' }]);
          node.state = answered(node.state, slot);
        } catch (err) {
          this.fail(node, err);
        }
      }),
    );
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.nodes.map((n) => n.client.close()));
  }

  private states(): NodeState[] {
    return this.nodes.map((n) => n.state);
  }

  /** One node's answer; its failure to answer sets it aside (a refusal is an answer). */
  private async ask<T>(node: Node, method: string, params: unknown[]): Promise<T> {
    try {
      const result = await node.client.call<T>(method, params);
      node.state = answered(node.state);
      return result;
    } catch (err) {
      if (err instanceof RpcError) node.state = answered(node.state);
      if (err instanceof DependencyUnavailable) throw this.fail(node, err);
      throw err;
    }
  }

  /**
   * Sets the node aside; returns the failure as DependencyUnavailable of the chain (as one client
   * says it, so a job's failed reason still reads as the chain away), naming the node, never its URL.
   */
  private fail(node: Node, err: unknown): DependencyUnavailable {
    const cause = err instanceof DependencyUnavailable && err.cause instanceof Error ? err.cause : err;
    let reason = cause instanceof Error ? cause.message : String(cause);
    for (const secret of node.secrets) reason = reason.split(secret).join('…');
    node.state = failed(node.state, Date.now(), this.rules, reason);
    for (const listener of this.failureListeners) listener(node.name);
    if (this.nodes.length === 1 && err instanceof DependencyUnavailable) return err;
    return new DependencyUnavailable(CHAIN, `node ${node.name}: ${reason}`);
  }
}

function describe(status: NodeStatus): string {
  if (status.healthy) return 'healthy';
  return status.why === 'lagging' ? `${status.behind} slots behind` : status.reason;
}
