import { ok } from '@fleetplane/core';
import type { Kysely } from 'kysely';
import type { Command } from '../../packages/hub/src/commands/pipeline.ts';
import type { Tables } from '../../packages/hub/src/database/tables.ts';

/** The command as it is, but asking for no job: what a command leaves behind when the pass it asked for is lost. */
export function withoutJobs<S, R>(command: Command<S, R>): Command<S, R> {
  return {
    ...command,
    decide: (state, now) => {
      const decided = command.decide(state, now);
      return decided.ok ? ok({ ...decided.value, jobs: [] }) : decided;
    },
  };
}

/**
 * The command as it is, but its transaction held open after its writes and job inserts: `held` runs in it then
 * (its first statement sends the writes waiting for the commit), and the commit waits for `until`. A test
 * sets a race up with it: what runs while a command has enqueued its jobs and not yet committed.
 */
export function heldBeforeCommit<S, R>(command: Command<S, R>, held: (trx: Kysely<Tables>) => Promise<void>, until: Promise<void>): Command<S, R> {
  return {
    ...command,
    decide: (state, now) => {
      const decided = command.decide(state, now);
      if (!decided.ok) return decided;
      const writes = decided.value.writes;
      return ok({
        ...decided.value,
        writes: async (trx: Kysely<Tables>) => {
          await writes?.(trx);
          await held(trx);
          await until;
        },
      });
    },
  };
}
