import { APPROVAL_STATUSES, INTENT_STATES, ROLLOUT_STATES } from '@fleetplane/core';
import { sql } from 'kysely';
import { planSegments, SEGMENT_STATES, type ArchivePolicy } from './archiver/plan.ts';
import type { Clock } from './clock.ts';
import type { HubConfig } from './config.ts';
import type { Database } from './database/connect.ts';
import { furthestBehind, lagPositions, lagSeconds } from './event-store/follow-lag.ts';
import type { LogCursor } from './event-store/read-all.ts';
import { listSegments } from './event-store/segments.ts';
import { ADMISSION_CLASSES, type Admission, type AdmissionClass } from './http/admission.ts';
import { Liveness, livenessSql } from './http/views/node.ts';
import { countsGauge, valueGauge, type HubMetrics } from './metrics.ts';

export interface GaugeSources {
  database: Database;
  config: HubConfig;
  archivePolicy: ArchivePolicy;
  clock: Clock;
  /** Every pg-boss queue this Hub works. */
  queues: readonly string[];
  /** The cursors of this Hub's open event streams (GET /api/v1/events/stream). */
  followers: ReadonlySet<{ readonly cursor: LogCursor }>;
  /** How many nodes' long polls this Hub holds now (the pull transport's watched nodes). */
  longPollNodes(): number;
  /** Requests of each class worked on and waiting now (http/admission.ts). */
  admission: Pick<Admission, 'inFlight' | 'queued'>;
}

/** Gauges read when /metrics is scraped; a gauge by state has every state as a series, at 0 when empty. */
export function registerGauges({ gauges }: HubMetrics, { database, config, archivePolicy, clock, queues, followers, longPollNodes, admission }: GaugeSources): void {
  const { db, pool } = database;
  const countBy = async (table: 'intents' | 'rollouts', column: 'state') =>
    (await db.selectFrom(table).select([column, (eb) => eb.fn.countAll<string>().as('n')]).groupBy(column).execute()).map((r) => [r[column], Number(r.n)] as const);

  countsGauge(gauges, { name: 'fleetplane_intents', help: 'Intents by state (blocked ones need an operator)', label: 'state', values: INTENT_STATES }, () =>
    countBy('intents', 'state'),
  );
  countsGauge(gauges, { name: 'fleetplane_rollouts', help: 'Rollouts by state (paused ones wait for an operator)', label: 'state', values: ROLLOUT_STATES }, () =>
    countBy('rollouts', 'state'),
  );
  countsGauge(
    gauges,
    { name: 'fleetplane_config_approvals', help: 'Approval requests by status (pending ones wait for a second admin)', label: 'status', values: APPROVAL_STATUSES },
    async () => {
      const rows = await db.selectFrom('config_approvals').select(['status', (eb) => eb.fn.countAll<string>().as('n')]).groupBy('status').execute();
      return rows.map((r) => [r.status, Number(r.n)] as const);
    },
  );
  countsGauge(
    gauges,
    {
      name: 'fleetplane_nodes',
      help: 'Registered nodes by liveness: the age of their last contact against reconciliation.stale_after_ms and offline_after_ms',
      label: 'liveness',
      values: Liveness.options,
    },
    async () => {
      const nodes = db.selectFrom('nodes').select(livenessSql(clock.now(), config).as('liveness')).as('nodes');
      const rows = await db.selectFrom(nodes).select(['liveness', (eb) => eb.fn.countAll<string>().as('n')]).groupBy('liveness').execute();
      return rows.map((r) => [r.liveness, Number(r.n)] as const);
    },
  );
  valueGauge(gauges, { name: 'fleetplane_recovery_holds', help: 'Rollout targets holding their rollout: a restore in flight or a claim it may have moved them' }, async () => {
    const row = await sql<{ n: string }>`SELECT count(*) AS n FROM recovery_holds`.execute(db);
    return Number(row.rows[0]!.n);
  });
  valueGauge(
    gauges,
    {
      name: 'fleetplane_nodes_unheard_since_restore',
      help: "Registered nodes that have not reported since the Hub's database was found restored (a restore, a point-in-time recovery, a failover): nothing is sent to them until they do",
    },
    async () => {
      const row = await sql<{ n: string }>`
        SELECT count(*) AS n FROM nodes n CROSS JOIN database_identity d
        WHERE d.restored_at IS NOT NULL AND (n.last_report_at IS NULL OR n.last_report_at < d.restored_at)`.execute(db);
      return Number(row.rows[0]!.n);
    },
  );
  valueGauge(
    gauges,
    {
      name: 'fleetplane_streams_ahead_of_log',
      help: 'Streams nodes run at a generation past the desired one, or run with no desired state: writes the log lost (a database restored from a backup)',
    },
    async () => {
      const row = await sql<{ n: string }>`
        SELECT count(*) AS n FROM observed_streams o
        LEFT JOIN streams s ON s.stream_id = o.stream_id AND s.removed_at IS NULL
        WHERE o.generation > coalesce(s.generation, 0) AND (s.stream_id IS NOT NULL OR o.state <> 'stopped')`.execute(db);
      return Number(row.rows[0]!.n);
    },
  );
  valueGauge(gauges, { name: 'fleetplane_log_segments_ahead', help: 'Empty segments of the event log ahead of its appends (kept at 2 or more)' }, async () => {
    const segments = await listSegments(db);
    return segments.filter((s) => s.ahead).length;
  });
  valueGauge(gauges, { name: 'fleetplane_log_hot_bytes', help: "The event log's segments in the database: tables, indexes and TOAST" }, async () => {
    const segments = await listSegments(db);
    return segments.reduce((sum, s) => sum + s.bytes, 0);
  });
  countsGauge(
    gauges,
    {
      name: 'fleetplane_log_segments',
      help: 'Segments of the event log by state (hot: written or ahead; closed: kept hot; archiving: due to leave the database, past log.hot_retention or log.hot_max_bytes)',
      label: 'state',
      values: SEGMENT_STATES,
    },
    async () => {
      const segments = await planSegments(db, archivePolicy, clock.now());
      return SEGMENT_STATES.map((state) => [state, segments.filter((s) => s.state === state).length] as const);
    },
  );
  valueGauge(
    gauges,
    { name: 'fleetplane_log_oldest_event_age_seconds', help: 'Age of the oldest event in the database, 0 when it has none (past log.hot_retention: archiving is behind)' },
    async () => {
      const oldest = await db.selectFrom('events').select('recorded_at').orderBy('position').limit(1).executeTakeFirst();
      return oldest ? (clock.now().getTime() - oldest.recorded_at.getTime()) / 1000 : 0;
    },
  );
  countsGauge(gauges, { name: 'fleetplane_job_queue_depth', help: 'Jobs waiting in each pg-boss queue', label: 'queue', values: queues }, async () => {
    const { rows } = await pool.query<{ name: string; n: string }>(`SELECT name, count(*) AS n FROM pgboss.job WHERE state IN ('created', 'retry') GROUP BY name`);
    return rows.map((r) => [r.name, Number(r.n)] as const);
  });
  const byClass = (read: (cls: AdmissionClass) => number) => async () => ADMISSION_CLASSES.map((cls) => [cls, read(cls)] as const);
  countsGauge(
    gauges,
    { name: 'fleetplane_http_requests_in_flight', help: 'Requests this Hub works on now, by class of client (agent|operator); long polls and event streams are not counted', label: 'class', values: ADMISSION_CLASSES },
    byClass(admission.inFlight),
  );
  countsGauge(
    gauges,
    { name: 'fleetplane_http_requests_queued', help: 'Requests waiting for a place to be worked on, by class of client (agent|operator)', label: 'class', values: ADMISSION_CLASSES },
    byClass(admission.queued),
  );
  valueGauge(gauges, { name: 'fleetplane_long_poll_nodes', help: 'Nodes whose long poll (GET /api/v1/agent/attempts) this Hub holds' }, async () => longPollNodes());
  valueGauge(gauges, { name: 'fleetplane_log_followers', help: "Event streams (GET /api/v1/events/stream) open on this Hub, each following the log" }, async () => followers.size);
  valueGauge(
    gauges,
    {
      name: 'fleetplane_log_follow_lag_positions',
      help: "How far this Hub's furthest-behind event stream is from the end of the log: the end's position less the stream's, 0 with none open",
    },
    async () => {
      const behind = furthestBehind([...followers].map((f) => f.cursor));
      return behind ? lagPositions(db, behind) : 0;
    },
  );
  valueGauge(
    gauges,
    {
      name: 'fleetplane_log_follow_lag_seconds',
      help: "How long the oldest event this Hub's furthest-behind event stream has still to send has been in the log, 0 when every stream has sent all",
    },
    async () => {
      const behind = furthestBehind([...followers].map((f) => f.cursor));
      return behind ? lagSeconds(db, behind, clock.now()) : 0;
    },
  );
}
