import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionResult } from './executors/executor.ts';

export type JournalEntry = { state: 'new' } | { state: 'started' } | { state: 'finished'; result: ExecutionResult };

/** How long an attempt is remembered after its last line: the Hub's default hot log retention. */
export const JOURNAL_KEEP_MS = 7 * 24 * 60 * 60 * 1000;
/** Appended lines between two compactions while running. */
export const COMPACT_EVERY = 10_000;

export interface JournalOptions {
  now?: () => Date;
  keepMs?: number;
  compactEvery?: number;
}

type Recorded = { entry: Exclude<JournalEntry, { state: 'new' }>; at: number };
type Line = { attempt_id: string; at?: unknown; result?: ExecutionResult };

const READ_CHUNK = 1 << 16;

/**
 * The attempts this node has executed, by attempt id, kept in the state dir as JSON lines: a `started` line
 * written before executing and a `finished` line with the result after, each with its time of writing (`at`).
 * An attempt delivered again (after an agent restart, or by another channel) is answered from here and never
 * executed twice; one that was started and never finished (the agent died meanwhile) is not run again either:
 * the node's next report tells the Hub what happened.
 *
 * A temporary failure is retried by the Hub for as long as it lasts, so the journal keeps an attempt only for
 * `keepMs` (7 days) after its last line, rewriting the file with one line per attempt kept on opening (when any
 * aged out or lacked its time) and every `compactEvery` appended lines. That is safe: the Hub delivers an
 * attempt only while it is queued or within its lease (seconds to minutes); a lease that runs out makes the
 * attempt ambiguous and the Hub never delivers it again; and the Hub itself prunes finished attempts older than
 * its hot log's retention (7 days by default). An attempt older than that never comes back, so it need not be
 * remembered.
 */
export class Journal {
  readonly #dir: string;
  /** The journal's file, `<state-dir>/attempts.jsonl`. */
  readonly file: string;
  readonly #entries = new Map<string, Recorded>();
  readonly #now: () => Date;
  readonly #keepMs: number;
  readonly #compactEvery: number;
  #appended = 0;

  constructor(stateDir: string, options: JournalOptions = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#keepMs = options.keepMs ?? JOURNAL_KEEP_MS;
    this.#compactEvery = options.compactEvery ?? COMPACT_EVERY;
    mkdirSync(stateDir, { recursive: true });
    this.#dir = stateDir;
    this.file = join(stateDir, 'attempts.jsonl');
    // A rewrite a crash cut short (`#rewrite`): the journal is whole without it.
    rmSync(`${this.file}.tmp`, { force: true });
    const now = this.#now().getTime();
    let stamped = false;
    const cut = readLines(this.file, (line) => {
      if (!line.trim()) return;
      try {
        const { attempt_id, at, result } = JSON.parse(line) as Line;
        const time = typeof at === 'string' ? Date.parse(at) : NaN;
        // A journal written before lines had a time: its attempts age out from now on.
        if (Number.isNaN(time)) stamped = true;
        this.#entries.set(attempt_id, {
          entry: result ? { state: 'finished', result } : { state: 'started' },
          at: Number.isNaN(time) ? now : time,
        });
      } catch {
        // a line cut short by a crash
      }
    });
    if (this.#dropOld(now) || stamped) this.#rewrite();
    // A line cut short by a crash ends the file without its newline: the next line must not run into it.
    else if (cut) appendFileSync(this.file, '\n');
  }

  entry(attemptId: string): JournalEntry {
    return this.#entries.get(attemptId)?.entry ?? { state: 'new' };
  }

  /** Recorded on disk (fsync) before the attempt runs: after any crash, a started attempt is never run again. */
  begin(attemptId: string): void {
    const recorded: Recorded = { entry: { state: 'started' }, at: this.#now().getTime() };
    try {
      // Compacting here rather than in `finish` means a failed rewrite stops an attempt before it runs, never
      // the posting of a result.
      if (this.#appended >= this.#compactEvery) {
        this.#dropOld(this.#now().getTime());
        this.#rewrite();
      }
      const fd = openSync(this.file, 'a');
      try {
        // Whole or an error (writeSync may write part of the line): a started attempt's line must be whole.
        writeFileSync(fd, toLine(attemptId, recorded));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      this.#appended++;
    } finally {
      // Held as started even when a write failed: the attempt is then not run, and a delivery of it again (by
      // the other channel) must not run it either.
      this.#entries.set(attemptId, recorded);
    }
  }

  finish(attemptId: string, result: ExecutionResult): void {
    const recorded: Recorded = { entry: { state: 'finished', result }, at: this.#now().getTime() };
    appendFileSync(this.file, toLine(attemptId, recorded));
    this.#entries.set(attemptId, recorded);
    this.#appended++;
  }

  /** Forgets the attempts whose last line is older than `keepMs`; true if there were any. */
  #dropOld(now: number): boolean {
    const size = this.#entries.size;
    for (const [id, { at }] of this.#entries) if (at < now - this.#keepMs) this.#entries.delete(id);
    return this.#entries.size < size;
  }

  /** Replaces the file with one line per attempt kept; written aside and renamed, so a crash leaves one whole file. */
  #rewrite(): void {
    const tmp = `${this.file}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      let text = '';
      for (const [id, recorded] of this.#entries) {
        text += toLine(id, recorded);
        if (text.length >= READ_CHUNK) {
          writeFileSync(fd, text);
          text = '';
        }
      }
      writeFileSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
    // The rename itself is durable only once the directory is.
    const dirFd = openSync(this.#dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
    this.#appended = 0;
  }
}

function toLine(attemptId: string, { entry, at }: Recorded): string {
  const time = new Date(at).toISOString();
  return JSON.stringify(entry.state === 'finished' ? { attempt_id: attemptId, at: time, result: entry.result } : { attempt_id: attemptId, at: time }) + '\n';
}

/**
 * Calls `onLine` with each line of `file` (none if there is no file), read in chunks: no one string holds the
 * whole file. Returns whether the last line lacks its newline.
 */
function readLines(file: string, onLine: (line: string) => void): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false; // a new node
    throw error;
  }
  const chunk = Buffer.alloc(READ_CHUNK);
  // The start of a line whose end is in a later chunk, kept as bytes: a character may be split between chunks.
  let rest = Buffer.alloc(0);
  try {
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) {
      const data = chunk.subarray(0, n);
      let start = 0;
      for (let newline = data.indexOf(10); newline !== -1; newline = data.indexOf(10, start)) {
        onLine(rest.length > 0 ? Buffer.concat([rest, data.subarray(start, newline)]).toString('utf8') : data.toString('utf8', start, newline));
        rest = Buffer.alloc(0);
        start = newline + 1;
      }
      rest = Buffer.concat([rest, data.subarray(start)]);
    }
  } finally {
    closeSync(fd);
  }
  if (rest.length > 0) onLine(rest.toString('utf8'));
  return rest.length > 0;
}
