import type { PgBoss } from 'pg-boss';
import type { Clock } from '../clock.ts';
import type { HubConfig } from '../config.ts';
import type { Database } from '../database/connect.ts';
import type { Appends } from '../event-store/appends.ts';
import type { Follower } from '../event-store/follow.ts';
import type { Logger } from '../logger.ts';
import type { RepeatedFailures } from '../repeated-failures.ts';
import type { HubMetrics } from '../metrics.ts';
import type { Pipeline } from '../commands/pipeline.ts';
import type { Admission } from './admission.ts';
import type { Authenticate } from './principal.ts';
import type { Issuer } from './oidc.ts';
import type { Reconciler } from '../reconcile/reconciler.ts';
import type { RolloutWorker } from '../rollouts/worker.ts';
import type { FirstLook } from '../transport/first-look.ts';
import type { RoutedTransport } from '../transport/router.ts';

/** Everything a route handler may use; built once when the Hub starts. */
export interface HubContext {
  database: Database;
  boss: PgBoss;
  config: HubConfig;
  clock: Clock;
  logger: Logger;
  /** The Hub's one record of failures that repeat while an outage lasts (repeated-failures.ts). */
  duties: RepeatedFailures;
  metrics: HubMetrics;
  pipeline: Pipeline;
  transport: RoutedTransport;
  /** A long poll's first look at its node, polls arriving together looking together (transport/first-look.ts). */
  firstLook(nodeId: string): Promise<FirstLook>;
  reconciler: Reconciler;
  rollouts: RolloutWorker;
  /**
   * Streamed responses (SSE) still open, and the signal with which Hub.stop ends them, and long polls, before
   * closing connections; the event streams' log followers, whose cursors /metrics reads for the follow lag,
   * each with the principal that opened it (a credential holds a bounded number);
   * `reloaded` is called after a configuration reload, so that a stream whose credential it revoked ends;
   * `appends` wakes every follower (the Hub's one LISTEN connection for them all).
   */
  streams: {
    stopping: AbortSignal;
    open: Set<Promise<void>>;
    followers: Set<Pick<Follower, 'cursor'> & { readonly principal: string }>;
    reloaded: Set<() => void>;
    appends: Appends;
  };
  /** How many requests of each class of client this Hub works on at once, and how many wait (admission.ts). */
  admission: Admission;
  /** The running credentials and issuers (replaced by a reload): a bearer token's principal, or null. */
  authenticate: Authenticate;
  /** The running configuration's OpenID Connect issuers (`control_api.oidc`, replaced by a reload). */
  issuers: readonly Issuer[];
  ready(): Promise<ReadinessReport>;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, { ok: boolean; detail?: string }>;
}
