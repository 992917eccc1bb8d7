import { approvalsProjection } from './approvals.ts';
import { attemptsProjection } from './attempts.ts';
import { configVersionsProjection } from './config-versions.ts';
import { databaseIdentityProjection } from './database-identity.ts';
import { intentsProjection } from './intents.ts';
import { nodesProjection } from './nodes.ts';
import { observedProjection } from './observed.ts';
import { rolloutsProjection } from './rollouts.ts';
import type { Projection } from './projection.ts';
import { settingsProjection } from './settings.ts';
import { streamsProjection } from './streams.ts';

/** Every projection the Hub maintains, in the order they are applied to each event. */
export const allProjections: readonly Projection[] = [
  nodesProjection,
  observedProjection,
  streamsProjection,
  // Attempts before intents: an IntentHistoryPruned removes an intent's attempts first (their foreign key).
  attemptsProjection,
  intentsProjection,
  settingsProjection,
  configVersionsProjection,
  rolloutsProjection,
  approvalsProjection,
  databaseIdentityProjection,
];
