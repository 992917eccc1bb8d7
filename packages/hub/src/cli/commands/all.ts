import type { Command } from '../command.ts';
import { approvalCommands } from './approvals.ts';
import { configCommands } from './config.ts';
import { databaseCommands } from './database.ts';
import { driftCommand } from './drift.ts';
import { eventCommands } from './events.ts';
import { nodeCommands } from './nodes.ts';
import { rolloutCommands } from './rollouts.ts';
import { targetsCommand } from './rollouts-targets.ts';
import { watchCommand } from './rollouts-watch.ts';
import { streamCommands } from './streams.ts';

/** Every command, in the order `fleetplane --help` lists them. */
export const allCommands: readonly Command[] = [
  ...nodeCommands,
  ...streamCommands,
  driftCommand,
  ...configCommands,
  ...rolloutCommands,
  targetsCommand,
  watchCommand,
  ...approvalCommands,
  ...eventCommands,
  ...databaseCommands,
];
