import { join } from 'node:path';
import { Agent } from '../../packages/agent/src/agent.ts';
import type { ConfigurableExecutor } from '../../packages/agent/src/executors/common.ts';
import type { AttemptCommand } from '../../packages/agent/src/executors/executor.ts';
import { createSimExecutor, LostResult, type SimExecutor, type SimFault } from '../../packages/agent/src/executors/sim.ts';
import { agentToken } from '../support/hub.ts';

/** One call of an executor's `apply`: what a node actually did. */
export interface Execution {
  node_id: string;
  attempt_id: string;
  intent_id: string;
  operation: AttemptCommand['operation'];
  stream_id: string | null;
  generation: number;
  action_id: string | null;
  /**
   * The node carried the command out: it answered success, or it applied the command and then lost the answer
   * (a lost result, or a crash after a restart took effect).
   */
  took_effect: boolean;
}

/** What the fleet saw, kept for the checks after the run. */
export interface FleetLedger {
  /** Every attempt a node received (either channel), by node and attempt id: the Hub's deliveries. */
  deliveries: Array<{ node_id: string; attempt_id: string }>;
  executions: Execution[];
}

/** A line an agent logged: `report failed`, `attempt poll failed`, … */
export interface AgentLine {
  at: number;
  node_id: string;
  level: string;
  message: string;
}

export interface FleetNode {
  nodeId: string;
  agent: Agent;
  sim: SimExecutor;
}

export interface Fleet {
  nodes: FleetNode[];
  ledger: FleetLedger;
  stop(): Promise<void>;
}

/** Each agent's long poll waits this long, and every call it makes to the Hub has this time limit beyond that. */
export const AGENT_POLL_SECONDS = 2;
export const AGENT_TIMEOUT_MS = 5000;

/**
 * Real agents (packages/agent), in this process, with the simulated executor: they register, report
 * periodically (node i every `reportEveryMs[i]`) and after every change, long-poll for attempts, execute them and post results, against
 * the Hub at `hubUrl` (a fixed address: the Hub comes back there after every kill, or a front before several
 * Hubs). Each executor is wrapped so that every execution is recorded by attempt id, and each agent's log so
 * that every delivery is; `log` sees every line the agents log, with the time it was logged.
 */
export async function startFleet(
  hubUrl: string,
  nodeIds: string[],
  stateRoot: string,
  options: { latencyMs: number; reportEveryMs: number[]; reviveAfterMs: number; log?: (line: AgentLine) => void },
): Promise<Fleet> {
  const ledger: FleetLedger = { deliveries: [], executions: [] };
  const nodes: FleetNode[] = [];
  for (const [i, nodeId] of nodeIds.entries()) {
    const sim = createSimExecutor({ latencyMs: options.latencyMs });
    const agent = new Agent({
      hub: hubUrl,
      nodeId,
      token: agentToken(nodeId),
      stateDir: join(stateRoot, nodeId),
      executor: recording(nodeId, sim, ledger),
      reportEveryMs: options.reportEveryMs[i % options.reportEveryMs.length]!,
      pollSeconds: AGENT_POLL_SECONDS,
      hubTimeoutMs: AGENT_TIMEOUT_MS,
      log: (level, message, fields) => {
        if (message === 'attempt received') ledger.deliveries.push({ node_id: nodeId, attempt_id: String(fields?.['attempt_id']) });
        options.log?.({ at: Date.now(), node_id: nodeId, level, message });
      },
    });
    await agent.start();
    nodes.push({ nodeId, agent, sim });
  }
  // A node whose simulated agent crashed answers nothing (no results, no reports) until it is revived, as a
  // supervisor restarts a dead agent: long enough for its leases to run out.
  const crashedSince = new Map<FleetNode, number>();
  const reviver = setInterval(() => {
    for (const node of nodes) {
      if (!node.sim.crashed) crashedSince.delete(node);
      else if (!crashedSince.has(node)) crashedSince.set(node, Date.now());
      else if (Date.now() - crashedSince.get(node)! >= options.reviveAfterMs) node.sim.revive();
    }
  }, 100);
  return {
    nodes,
    ledger,
    async stop() {
      clearInterval(reviver);
      await Promise.all(nodes.map((n) => n.agent.stop()));
    },
  };
}

/** Arms one fault on a node's executor: it fires on the next attempt it matches. */
export function arm(node: FleetNode, fault: SimFault): void {
  node.sim.faults.push(fault);
}

function recording(nodeId: string, sim: SimExecutor, ledger: FleetLedger): ConfigurableExecutor {
  const record = (command: AttemptCommand, tookEffect: boolean) =>
    ledger.executions.push({
      node_id: nodeId,
      attempt_id: command.attempt_id,
      intent_id: command.intent_id,
      operation: command.operation,
      stream_id: command.stream_id,
      generation: command.generation,
      action_id: command.action_id,
      took_effect: tookEffect,
    });
  // A restart that took effect starts a new instance of its stream.
  const instance = (command: AttemptCommand) => (command.stream_id === null ? 0 : sim.instance(command.stream_id));
  return {
    async apply(command) {
      const before = instance(command);
      try {
        const result = await sim.apply(command);
        record(command, result.outcome === 'succeeded');
        return result;
      } catch (e) {
        record(command, e instanceof LostResult || (command.operation === 'job_restart' && instance(command) > before));
        throw e;
      }
    },
    observe: () => sim.observe(),
    forget: (streamId, generation) => sim.forget(streamId, generation),
    configuration: () => sim.configuration(),
    onChange: (listener) => sim.onChange(listener),
    close: () => sim.close(),
  };
}
