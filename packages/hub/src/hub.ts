import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { PgBoss } from 'pg-boss';
import { systemClock, type Clock } from './clock.ts';
import { openDestination } from './archive/destination-url.ts';
import { startArchiver } from './archiver/archiver.ts';
import type { ArchivePolicy } from './archiver/plan.ts';
import { approvalGateWarning, archiveDestination, durationMs, readNodeProxyToken, reloadedConfig, sizeBytes, type ConfigFile, type HubConfig, type Reloaded } from './config.ts';
import { connect, IDLE_IN_TRANSACTION_MS, type Database } from './database/connect.ts';
import { startDatabaseClock, type DatabaseClock } from './database/database-clock.ts';
import { deadlockTimeoutWarning } from './database/deadlock-timeout.ts';
import { MigrationRefused, pendingMigrations } from './database/migrate.ts';
import { HUB_QUEUES, prepareDatabase } from './database/prepare.ts';
import { listenForAppends } from './event-store/appends.ts';
import { eventsNotifier } from './event-store/notify.ts';
import { keepSegmentsAhead, keepSegmentsAheadEvery, SEGMENT_BOUNDS, type SegmentPolicy } from './event-store/segments.ts';
import { admissionFor } from './http/admission.ts';
import { createApp } from './http/app.ts';
import { REQUEST_FAILED } from './http/failure.ts';
import { CONSOLE_DIST } from './http/console.ts';
import type { HubContext, ReadinessReport } from './http/context.ts';
import { forgetKeys } from './http/idempotency.ts';
import { issuersFor } from './http/oidc.ts';
import { answerClientError, REQUEST_TIMEOUT } from './http/client-error.ts';
import { authenticator } from './http/principal.ts';
import { descriptorWarning, limitPipelining, limitServer, listenBacklog, serverLimits, serverOptions, type ConnectionCounts, type ServerLimits } from './http/server-limits.ts';
import { allRoutes } from './http/routes/all.ts';
import { startBoss } from './jobs/boss.ts';
import { BOOT_LOCK_WAIT_MS, LEASE_SWEEP_EVERY_MS, RESYNC_EVERY_MS, startReconciler } from './reconcile/reconciler.ts';
import { pruneIntentsBefore } from './reconcile/prune-intents.ts';
import { APPROVAL_SWEEP_EVERY_MS, startApprovalWorker } from './approvals/worker.ts';
import { startStreamWorker } from './reconcile/stream-worker.ts';
import { startRolloutWorker } from './rollouts/worker.ts';
import { firstLooks } from './transport/first-look.ts';
import { nodeProxyTransport } from './transport/node-proxy.ts';
import { startPullTransport } from './transport/pull.ts';
import { routeTransports } from './transport/router.ts';
import { createPipeline } from './commands/pipeline.ts';
import { createLogger, type Logger } from './logger.ts';
import { repeatedFailures, type Duty } from './repeated-failures.ts';
import { UNAVAILABLE_SAYS } from './database/unavailable.ts';
import { checkIdentity, identityLine } from './database/identity.ts';
import { registerGauges } from './gauges.ts';
import { hubMetrics } from './metrics.ts';
import { allProjections } from './projections/all.ts';
import { EnvironmentError } from './start-failure.ts';
import { proxiedDispatcher } from './egress.ts';
import { keyFileExposed, readTlsPair, trusting, type TlsPair } from './tls.ts';

export interface HubOptions {
  config: HubConfig;
  databaseUrl: string;
  /** The clock the Hub decides on, as given (tests move it); default the database server's (database/database-clock.ts). */
  clock?: Clock;
  logger?: Logger;
  /** Listen on this port instead of config.port (0: any free port). */
  port?: number;
  /** How often this Hub sweeps expired leases (default 1 s). */
  sweepEveryMs?: number;
  /** How often the Hubs queue a pass for every node whose intents want an attempt (default 1 min; one Hub at a time). */
  resyncEveryMs?: number;
  /** How long boot reclassification waits for another Hub's before running anyway (default 10 s). */
  bootLockWaitMs?: number;
  /** How often to look for pending approvals past their time whose expiry job was lost (default 60 s). */
  approvalSweepEveryMs?: number;
  /** How often this Hub forgets expired Idempotency-Keys (default 1 min). */
  forgetKeysEveryMs?: number;
  /** How often this Hub prunes the intents and attempts done before the hot log's window (default 1 h; reconcile/prune-intents.ts). */
  pruneIntentsEveryMs?: number;
  /** How long one push to a node's control endpoint may take (default 5 s). */
  pushTimeoutMs?: number;
  /** How often this Hub checks that the log has segments ahead of its appends (default 5 s). */
  segmentsEveryMs?: number;
  /** How many events a new segment of the log holds at least and at most, and how many are kept ahead (default SEGMENT_BOUNDS; tests use small ones). */
  segmentBounds?: Pick<SegmentPolicy, 'minEvents' | 'maxEvents' | 'ahead'>;
  /** How long a connection may go with no byte moving in the middle of a request or an answer (default IDLE_TIMEOUT_MS, http/server-limits.ts). */
  idleTimeoutMs?: number;
}

export interface Hub {
  url: string;
  context: HubContext;
  /**
   * Runs on `file`, the configuration file read again (SIGHUP): its live keys (config.ts, LIVE_KEYS) take
   * effect for every request from now on, credentials included; the others are kept as they run and named.
   */
  reload(file: ConfigFile): Reloaded;
  /**
   * Reads FLEETPLANE_TLS_CERT and FLEETPLANE_TLS_KEY again (SIGHUP) and serves new connections with them;
   * open ones keep theirs. A pair that cannot serve is refused (thrown) and the running one stays. Null
   * when the Hub serves plain HTTP.
   */
  reloadCertificate(): TlsPair | null;
  stop(): Promise<void>;
}

/**
 * Starts one Hub process: migrates the database (under an advisory lock, so Hubs starting together take
 * turns), starts the job workers, and serves the API. Several Hubs may share one database.
 */
export async function startHub(options: HubOptions): Promise<Hub> {
  const logger = options.logger ?? createLogger();
  const gateWarning = approvalGateWarning(options.config.file);
  if (gateWarning) logger.warn(gateWarning, { approvers_needed: 2 });
  const nodeProxyToken = readNodeProxyToken(options.config.file, (message, fields) => logger.warn(message, fields));
  const nodeTrust = trusting(options.config.file.control_api.node_proxy_ca_file, 'control_api.node_proxy_ca_file');
  const tls = options.config.tls;
  if (tls && keyFileExposed(tls.keyFile)) logger.warn('TLS key file is readable by group or others', { file: tls.keyFile });
  const log = options.config.file.log;
  const segmentPolicy: SegmentPolicy = { ...(options.segmentBounds ?? SEGMENT_BOUNDS), durationMs: durationMs(log.segment_duration) };
  const archivePolicy: ArchivePolicy = { hotRetentionMs: durationMs(log.hot_retention), hotMaxBytes: log.hot_max_bytes === null ? null : sizeBytes(log.hot_max_bytes) };
  const archive = openDestination(archiveDestination(options.config));
  const metrics = hubMetrics();
  // Timed on this host's clock, as the log lines are: not the one the Hub decides on, which tests move.
  const duties = repeatedFailures(logger, systemClock, (duty) => metrics.backgroundFailures.inc({ duty }));
  const database = connect(options.databaseUrl, {
    idleInTransactionMs: IDLE_IN_TRANSACTION_MS,
    onConnectionLost: (error) => duties.failed(CONNECTION_LOST, error),
    onDeallocated: (count) => metrics.preparedDeallocations.inc(count),
  });
  let boss: PgBoss | null = null;
  let databaseClock: DatabaseClock | null = null;
  let clock: Clock;
  try {
    // A Hub on its own role (fleetplane_hub) finds the owner did this; one given the owner's role (the
    // embedded server, or DATABASE_URL naming the owner) does it here.
    const applied = await prepareDatabase(options.databaseUrl, {
      onWait: (holder) =>
        logger.warn('waiting for the database lock under which migrations run: another session holds it', {
          holder_pid: holder.pid,
          holder_application: holder.application,
          holder_client: holder.client,
          holder_state: holder.state,
          holder_query: holder.query,
        }),
    });
    if (applied.length) logger.info('migrations applied', { versions: applied });
    const owner = await ownsTheLog(database);
    if (owner) logger.warn(OWNER_WARNING);
    if (options.clock) clock = options.clock;
    else clock = databaseClock = await startDatabaseClock(database.pool, systemClock, { logger, onMeasured: (ms) => metrics.clockOffset(ms / 1000) });
    // Before the Hub serves; a check that cannot finish (a lock held too long) is said, and tried again every few seconds.
    await keepSegmentsAhead(database.db, segmentPolicy, clock.now()).catch((error: unknown) => duties.failed(SEGMENTS_FAILED, error));
    const deadlockWarning = await deadlockTimeoutWarning(database.db);
    if (deadlockWarning) logger.warn(deadlockWarning);
    boss = await startBoss(options.databaseUrl, HUB_QUEUES, {
      error: (error) => duties.failed(JOB_QUEUE_ERROR, error),
      warning: ({ message, data }) => logger.warn(`job queue: ${message}`, { warning: data }),
    }, owner);
  } catch (e) {
    databaseClock?.stop();
    await boss?.stop({ graceful: false }).catch(() => {});
    await database.close();
    throw e;
  }
  const pipeline = createPipeline({
    db: database.db,
    boss,
    clock,
    projections: allProjections,
    onAppended: eventsNotifier(database.pool),
    onRerun: (command, reason, shared) => metrics.commandReruns.inc({ command, reason, shared: String(shared) }),
  });
  // After migrations, before the Hub serves or runs a worker: a database that went back in time is recorded
  // first, so nothing is sent to a node not heard from since (database/identity.ts).
  const identify = () =>
    checkIdentity(database.db, pipeline).then((identified) => {
      if (!identified) return;
      const { level, message, fields } = identityLine(identified);
      logger[level](message, fields);
    });
  await identify();
  const pull = await startPullTransport(
    options.databaseUrl,
    (error) => duties.failed(ATTEMPT_CHANNEL_ERROR, error),
    () => duties.succeeded(ATTEMPT_CHANNEL_ERROR),
  );
  const appends = await listenForAppends(
    options.databaseUrl,
    (error) => duties.failed(EVENT_CHANNEL_ERROR, error),
    () => duties.succeeded(EVENT_CHANNEL_ERROR),
  );
  // Nodes that registered a control address are pushed to (node_proxy) when this Hub holds the hub-to-node
  // token; the others, and all nodes without one, take their attempts by long poll (pilot_tunnel).
  const push =
    nodeProxyToken === null
      ? null
      : nodeProxyTransport({
          db: database.db,
          pipeline,
          logger,
          clock,
          mode: options.config.file.reconciliation.mode,
          leaseMs: options.config.file.reconciliation.lease_ms,
          retry: { baseMs: options.config.file.reconciliation.retry_base_ms, maxMs: options.config.file.reconciliation.retry_max_ms },
          token: nodeProxyToken,
          ...(nodeTrust ? { dispatcher: nodeTrust } : {}),
          ...(options.pushTimeoutMs !== undefined ? { timeoutMs: options.pushTimeoutMs } : {}),
          onPushed: (outcome) => metrics.attemptPushes.inc({ outcome }),
          onRetry: () => metrics.retries.inc(),
        });
  const { offline_after_ms } = options.config.file.reconciliation;
  const transport = routeTransports(database.db, pull, push, () => new Date(clock.now().getTime() - offline_after_ms));
  const reconciler = await startReconciler({
    db: database.db,
    boss,
    pipeline,
    transport,
    logger,
    duties,
    mode: options.config.file.reconciliation.mode,
    sweepEveryMs: options.sweepEveryMs ?? LEASE_SWEEP_EVERY_MS,
    resyncEveryMs: options.resyncEveryMs ?? RESYNC_EVERY_MS,
    bootLockWaitMs: options.bootLockWaitMs ?? BOOT_LOCK_WAIT_MS,
    onLeasesExpired: (n) => metrics.leaseExpiries.inc(n),
    onResyncFound: (nodeId, n) => {
      metrics.resyncFound.inc(n);
      logger.warn('the resync found work no pass had taken: a pass was asked for and not run, or was cut by a crash', { node_id: nodeId, attempts_queued: n });
    },
  });
  const rollouts = await startRolloutWorker({
    db: database.db,
    boss,
    pipeline,
    logger,
    mode: options.config.file.reconciliation.mode,
    config: options.config,
    offer: (nodeIds) => transport.offer(nodeIds),
  });
  const approvals = await startApprovalWorker(boss, pipeline, { db: database.db, clock, duties, everyMs: options.approvalSweepEveryMs ?? APPROVAL_SWEEP_EVERY_MS });
  const streamChecks = await startStreamWorker(database.db, boss, pipeline);
  // Every Hub forgets expired Idempotency-Keys: a DELETE by age, harmless when Hubs overlap.
  const forgetting = setInterval(() => {
    forgetKeys(database.db, new Date(clock.now().getTime() - context.config.file.control_api.idempotency_ttl_ms)).then(
      () => duties.succeeded(FORGETTING_FAILED),
      (error: unknown) => duties.failed(FORGETTING_FAILED, error),
    );
  }, options.forgetKeysEveryMs ?? 60_000);
  // Every Hub prunes what intents' history no longer needs in the tables once it is older than the hot log
  // (reconcile/prune-intents.ts): the tables, and the checkpoints taken of them, keep the present, the hot
  // log's window and what a rollback can reach, not every write and retry ever made. Runs at once in several
  // Hubs remove each row once. At start too, as the archiver: a Hub restarted within the hour would never prune.
  // The run under way, which a stop awaits: none runs on after the Hub closes its connections.
  let pruned: Promise<unknown> = Promise.resolve();
  const prune = () => {
    const before = new Date(clock.now().getTime() - durationMs(context.config.file.log.hot_retention));
    pruned = pruneIntentsBefore(pipeline, before)
      .then(
        (n) => {
          duties.succeeded(PRUNING_FAILED);
          if (n.intents + n.attempts > 0) logger.info('intents pruned', { ...n, before: before.toISOString() });
        },
        (error: unknown) => duties.failed(PRUNING_FAILED, error),
      );
  };
  const pruning = setInterval(prune, options.pruneIntentsEveryMs ?? 3_600_000);
  // Every Hub checks the database's identity again at the lease sweep's pace: a failover or a restore under a
  // running Hub (it regains a database that is another) is recorded by the next check. The check under way, which a stop awaits.
  let identifying: Promise<unknown> = Promise.resolve();
  // The job queue, the pool and requests answered 503 say when they fail, never when they work again: the
  // database answering this check, and none of them failing for a while, stands for it.
  const identities = setInterval(() => {
    identifying = identify().then(
      () => {
        duties.succeeded(IDENTITY_FAILED);
        for (const duty of [JOB_QUEUE_ERROR, CONNECTION_LOST, REQUEST_FAILED]) duties.succeeded(duty, QUIET_MS);
      },
      (error: unknown) => duties.failed(IDENTITY_FAILED, error),
    );
  }, options.sweepEveryMs ?? LEASE_SWEEP_EVERY_MS);
  // Every Hub keeps segments ahead of the log's appends, in turns (keepSegmentsAhead): an append to a position
  // no segment holds would fail.
  const segmenting = keepSegmentsAheadEvery(database.db, segmentPolicy, {
    everyMs: options.segmentsEveryMs ?? 5_000,
    now: () => clock.now(),
    onChecked: (segments) => {
      duties.succeeded(SEGMENTS_FAILED);
      if (segments.length > 0) logger.info('log segments added', { segments });
    },
    onError: (error) => duties.failed(SEGMENTS_FAILED, error),
  });
  const archiver = startArchiver({
    db: database.db,
    pipeline,
    destination: archive,
    policy: archivePolicy,
    projections: allProjections,
    clock,
    logger,
    everyMs: durationMs(log.archive_every),
    onFailure: (error) => {
      metrics.logArchiveFailures.inc();
      duties.failed(ARCHIVING_FAILED, error, { destination: archive.url, every_ms: durationMs(log.archive_every) });
    },
    onSuccess: () => duties.succeeded(ARCHIVING_FAILED),
  });
  const stopStreams = new AbortController();
  const streams: HubContext['streams'] = { stopping: stopStreams.signal, open: new Set(), followers: new Set(), reloaded: new Set(), appends };
  const admission = admissionFor(options.config.file.control_api, (cls, reason) => metrics.requestsRefused.inc({ class: cls, reason }));
  registerGauges(metrics, { database, config: options.config, archivePolicy, clock, queues: HUB_QUEUES.map((q) => q.name), followers: streams.followers, longPollNodes: () => transport.watched(), admission });
  let workersRunning = true;
  // Issuers are outside the fleet's network: reached through the egress proxy the Hub's environment names.
  const issuerOptions = { now: () => clock.now(), dispatcher: proxiedDispatcher(process.env) };
  const issuers = issuersFor(options.config.file.control_api.oidc, [], issuerOptions);
  const context: HubContext = {
    database,
    boss,
    config: options.config,
    clock,
    logger,
    duties,
    metrics,
    pipeline,
    transport,
    firstLook: firstLooks(database.db),
    reconciler,
    rollouts,
    streams,
    admission,
    issuers,
    authenticate: authenticator(options.config.file.control_api, issuers),
    ready: () => readiness(database, () => workersRunning),
  };
  prune();
  const app = createApp(context, allRoutes, CONSOLE_DIST);
  const limits = serverLimits(options.config.file.control_api, options.idleTimeoutMs);
  const descriptors = descriptorWarning(limits);
  if (descriptors) logger.warn(descriptors);
  metrics.httpConnectionsLimit.set(limits.maxConnections);
  const server = await listen(app, options.port ?? options.config.port, options.config.bind, tls, limits, {
    opened: () => metrics.httpConnections.inc(),
    closed: () => metrics.httpConnections.dec(),
    refused: () => metrics.httpConnectionsRefused.inc(),
  }, () => metrics.httpRequestTimeouts.inc());
  const url = serverUrl(server, options.config.bind, tls !== null);
  if (tls) metrics.certificateExpiry(tls.notAfter.getTime() / 1000);
  logger.info('hub listening', { url, tls: tls !== null, ...(tls && { certificate_expires_at: tls.notAfter.toISOString() }) });

  return {
    url,
    context,
    reload(file) {
      const reloaded = reloadedConfig(context.config.file, file);
      const gate = approvalGateWarning(reloaded.file);
      if (gate) logger.warn(gate, { approvers_needed: 2 });
      context.config = { ...context.config, file: reloaded.file };
      context.issuers = issuersFor(reloaded.file.control_api.oidc, context.issuers, issuerOptions);
      context.authenticate = authenticator(reloaded.file.control_api, context.issuers);
      for (const recheck of context.streams.reloaded) recheck();
      return reloaded;
    },
    reloadCertificate() {
      if (tls === null) return null;
      const pair = readTlsPair(tls.certFile, tls.keyFile, clock.now())!;
      (server as TlsServer).setSecureContext({ cert: pair.cert, key: pair.key });
      metrics.certificateExpiry(pair.notAfter.getTime() / 1000);
      return pair;
    },
    async stop() {
      workersRunning = false;
      clearInterval(forgetting);
      clearInterval(pruning);
      clearInterval(identities);
      await pruned;
      await identifying;
      segmenting.stop();
      await archiver.stop();
      // First: event streams end cleanly (their clients see the end and reconnect with Last-Event-ID), and long
      // polls the transport's stop wakes lease nothing on their way out.
      stopStreams.abort();
      await transport.stop();
      await Promise.all(context.streams.open);
      await appends.stop();
      // Long polls and keep-alive connections would hold the server open: agents reconnect to another Hub
      // (or this one, restarted) and retry.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await reconciler.stop();
      await rollouts.stop();
      await approvals.stop();
      await streamChecks.stop();
      await boss.stop({ graceful: true, timeout: 10_000 });
      databaseClock?.stop();
      await database.close();
    },
  };
}

/** The Hub's duties that fail again and again while the database is away (repeated-failures.ts). */
const CONNECTION_LOST: Duty = { name: 'database_connection', failed: 'database connection lost' };
const SEGMENTS_FAILED: Duty = { name: 'log_segments', failed: 'adding log segments failed' };
const JOB_QUEUE_ERROR: Duty = { name: 'job_queue', failed: 'job queue error' };
const ATTEMPT_CHANNEL_ERROR: Duty = { name: 'attempt_channel', failed: 'attempt channel error' };
const EVENT_CHANNEL_ERROR: Duty = { name: 'event_channel', failed: 'event channel error' };
const FORGETTING_FAILED: Duty = { name: 'idempotency_keys', failed: 'forgetting idempotency keys failed' };
const PRUNING_FAILED: Duty = { name: 'intent_pruning', failed: 'pruning intents failed' };
const IDENTITY_FAILED: Duty = { name: 'identity_check', failed: "checking the database's identity failed" };
const ARCHIVING_FAILED: Duty = { name: 'archive', failed: 'archiving the log failed; trying again at the next run' };
/** How long a duty that never says it works must not have failed, the database answering, to count as working again. */
const QUIET_MS = 5_000;

const OWNER_WARNING =
  "the Hub's database role owns the event log: it could alter or drop it. Run the Hub as a member of fleetplane_hub, and migrations as the owner (README, \"Database roles\")";

/** Whether the Hub's role owns `events` (or is a superuser): least privilege is not in force. */
async function ownsTheLog(database: Database): Promise<boolean> {
  const { rows } = await database.pool.query<{ owner: boolean }>(`SELECT pg_has_role(current_user, relowner, 'USAGE') AS owner FROM pg_class WHERE oid = 'events'::regclass`);
  return rows[0]!.owner;
}

/**
 * Serves `app` on `bind` (every interface when null) and `port`, over HTTPS with `tls`, else plain HTTP, within
 * `limits`; a request Node's parser refuses or cuts is answered with the error envelope, each cut one counted by `onTimeout`.
 */
function listen(app: RequestListener, port: number, bind: string | null, tls: TlsPair | null, limits: ServerLimits, counts: ConnectionCounts, onTimeout: () => void): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server: Server = tls ? createTlsServer({ ...serverOptions(), cert: tls.cert, key: tls.key }, limitPipelining(app)) : createServer(serverOptions(), limitPipelining(app));
    limitServer(server, limits, counts);
    server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
      if (error.code === REQUEST_TIMEOUT) onTimeout();
      answerClientError(error, socket);
    });
    server.once('listening', () => resolve(server));
    server.once('error', (e: Error) => reject(new EnvironmentError(`cannot listen on ${bind ?? 'every interface'} port ${port}: ${e.message}`, { cause: e })));
    server.listen({ port, backlog: listenBacklog(limits), ...(bind === null ? {} : { host: bind }) });
  });
}

/** The Hub's own URL, as it prints it: the bound address, or localhost when it listens on every interface. */
function serverUrl(server: Server, bind: string | null, tls: boolean): string {
  const { address, port } = server.address() as AddressInfo;
  const host = bind === null || address === '0.0.0.0' || address === '::' ? 'localhost' : address.includes(':') ? `[${address}]` : address;
  return `${tls ? 'https' : 'http'}://${host}:${port}`;
}

/**
 * Whether the schema is the one this Hub serves on. A database migrated ahead of it (a rolling upgrade that ran
 * `fleetplane migrate` first) keeps it ready: a migration keeps the release before it working, so the running
 * Hubs serve on until each is replaced, while one of their release refuses to start again.
 */
async function migrationsCheck(database: Database): Promise<{ ok: boolean; detail?: string }> {
  try {
    const pending = await pendingMigrations(database.pool);
    return pending.length === 0 ? { ok: true } : { ok: false, detail: `${pending.length} pending` };
  } catch (e) {
    if (!(e instanceof MigrationRefused) || e.refusal.code !== 'database_newer_than_code') throw e;
    return { ok: true, detail: `${e.message}; this Hub serves on until it is replaced, and would not start again` };
  }
}

async function readiness(database: Database, workersRunning: () => boolean): Promise<ReadinessReport> {
  const checks: ReadinessReport['checks'] = {};
  try {
    // A server that refuses writes (a standby after a failover) answers, but the Hub cannot serve on it.
    const { rows } = await database.pool.query<{ read_only: boolean; restored_at: Date | null }>(
      "SELECT current_setting('transaction_read_only') = 'on' AS read_only, (SELECT restored_at FROM database_identity) AS restored_at",
    );
    const { read_only, restored_at } = rows[0]!;
    // A database found restored serves as any other; the time tells an operator since when nodes are held until they report.
    const restored = restored_at ? { detail: `restored at ${restored_at.toISOString()}: nothing is sent to a node until it reports since (fleetplane_nodes_unheard_since_restore)` } : {};
    checks.database = read_only ? { ok: false, detail: `the database ${UNAVAILABLE_SAYS.read_only}` } : { ok: true, ...restored };
    checks.migrations = await migrationsCheck(database);
  } catch (e) {
    checks.database ??= { ok: false, detail: (e as Error).message };
    checks.migrations = { ok: false, detail: (e as Error).message };
  }
  checks.workers = workersRunning() ? { ok: true } : { ok: false, detail: 'stopped' };
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}
