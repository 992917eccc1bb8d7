import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionResult } from './executors/executor.ts';

export type JournalEntry = { state: 'new' } | { state: 'started' } | { state: 'finished'; result: ExecutionResult };

/**
 * The attempts this node has executed, by attempt id, kept in the state dir as JSON lines: a `started` line
 * written before executing and a `finished` line with the result after. An attempt delivered again (after an
 * agent restart, or by another channel) is answered from here and never executed twice; one that was started
 * and never finished (the agent died meanwhile) is not run again either: the node's next report tells the
 * Hub what happened.
 */
export class Journal {
  readonly #file: string;
  readonly #entries = new Map<string, JournalEntry>();
  constructor(stateDir: string) {
    mkdirSync(stateDir, { recursive: true });
    this.#file = join(stateDir, 'attempts.jsonl');
    let text = '';
    try {
      text = readFileSync(this.#file, 'utf8');
    } catch {
      // a new node
    }
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const { attempt_id, result } = JSON.parse(line) as { attempt_id: string; result?: ExecutionResult };
        this.#entries.set(attempt_id, result ? { state: 'finished', result } : { state: 'started' });
      } catch {
        // a line cut short by a crash
      }
    }
  }

  entry(attemptId: string): JournalEntry {
    return this.#entries.get(attemptId) ?? { state: 'new' };
  }

  begin(attemptId: string): void {
    this.#append({ attempt_id: attemptId });
    this.#entries.set(attemptId, { state: 'started' });
  }

  finish(attemptId: string, result: ExecutionResult): void {
    this.#append({ attempt_id: attemptId, result });
    this.#entries.set(attemptId, { state: 'finished', result });
  }

  #append(line: object): void {
    appendFileSync(this.#file, JSON.stringify(line) + '\n');
  }
}
