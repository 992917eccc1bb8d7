import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
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
    // A line cut short by a crash ends the file without its newline: the next line must not run into it.
    if (text.length > 0 && !text.endsWith('\n')) appendFileSync(this.#file, '\n');
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

  /** Recorded on disk (fsync) before the attempt runs: after any crash, a started attempt is never run again. */
  begin(attemptId: string): void {
    const fd = openSync(this.#file, 'a');
    try {
      writeSync(fd, JSON.stringify({ attempt_id: attemptId }) + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.#entries.set(attemptId, { state: 'started' });
  }

  finish(attemptId: string, result: ExecutionResult): void {
    appendFileSync(this.#file, JSON.stringify({ attempt_id: attemptId, result }) + '\n');
    this.#entries.set(attemptId, { state: 'finished', result });
  }
}
