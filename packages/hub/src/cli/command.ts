import type { OptionDef, Parsed } from './args.ts';
import type { HubClient } from './hub-client.ts';
import type { Io } from './io.ts';

export interface Context {
  io: Io;
  /** `--json`: machine output on stdout instead of tables. */
  json: boolean;
  /** The Hub named by --hub / FLEETPLANE_HUB, as --token / FLEETPLANE_TOKEN. */
  hub(): HubClient;
}

/** One command: the words that name it, its arguments, its help, and what it does. Returns the exit code. */
export interface Command {
  path: readonly string[];
  /** The arguments after the path, for the usage line. */
  synopsis: string;
  summary: string;
  /** More help: what the command does beyond its summary, what it cannot do. */
  details?: string;
  options: Readonly<Record<string, OptionDef>>;
  positionals: { min: number; max: number };
  /** Runs here, on the database or alone, not through the Hub: no --hub or --token. */
  local?: boolean;
  run(ctx: Context, args: Parsed): Promise<number>;
}

export const none = { min: 0, max: 0 };
export const oneId = { min: 1, max: 1 };
