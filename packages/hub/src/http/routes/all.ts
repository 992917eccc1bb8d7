import { agentReportRoutes, agentRoutes } from './agent.ts';
import { approvalRoutes } from './approvals.ts';
import { authRoutes } from './auth.ts';
import { attemptRoutes } from './attempts.ts';
import { configRoutes } from './config.ts';
import { eventRoutes } from './events.ts';
import { intentRoutes } from './intents.ts';
import { rolloutRoutes } from './rollouts.ts';
import { streamRoutes } from './streams.ts';
import { nodeRoutes } from './nodes.ts';
import { opsRoutes } from './ops.ts';
import { whoamiRoutes } from './whoami.ts';
import type { RouteDef } from '../route.ts';
import { version } from '../../version.ts';

/** Every route the Hub serves, in one list: served, authorized and documented from the same definitions. */
export const allRoutes: readonly RouteDef[] = [
  ...opsRoutes(() => allRoutes, version),
  ...agentRoutes,
  ...agentReportRoutes,
  ...nodeRoutes,
  ...streamRoutes,
  ...intentRoutes,
  ...attemptRoutes,
  ...configRoutes,
  ...rolloutRoutes,
  ...approvalRoutes,
  ...eventRoutes,
  ...whoamiRoutes,
  ...authRoutes,
];
