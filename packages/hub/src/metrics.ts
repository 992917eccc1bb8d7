import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ADMISSION_CLASSES, REFUSED_FOR } from './http/admission.ts';

/**
 * The process's own metrics (CPU, memory, event loop lag, GC, handles, Node's version), as prom-client
 * names them. One set per process, however many Hubs it runs (tests run many): made with the first Hub.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** A gauge read when /metrics is scraped (gauges.ts): its series as they are now, each its labels and value. */
export interface ScrapedGauge {
  name: string;
  help: string;
  labelNames: string[];
  read(): Promise<Array<readonly [Record<string, string>, number]>>;
}

/**
 * A gauge of counts by one label. Every value of `values` is a series, at 0 when nothing has it, so an
 * alert on `> 0` sees its series come back to 0. `read` answers [value, count] pairs.
 */
export function countsGauge<V extends string>(
  gauges: ScrapedGauge[],
  options: { name: string; help: string; label: string; values: readonly V[] },
  read: () => Promise<Iterable<readonly [string, number]>>,
): void {
  const { name, help, label, values } = options;
  gauges.push({
    name,
    help,
    labelNames: [label],
    async read() {
      const counts = new Map(await read());
      return [...new Set([...values, ...counts.keys()])].map((value) => [{ [label]: value }, counts.get(value) ?? 0] as const);
    },
  });
}

/** The sum of a counter's series whose labels include `match`. */
export async function counterTotal(counter: Counter, match: Record<string, string> = {}): Promise<number> {
  const { values } = await counter.get();
  return values.filter((v) => Object.entries(match).every(([name, value]) => v.labels[name] === value)).reduce((sum, v) => sum + v.value, 0);
}

/** A gauge of one number. */
export function valueGauge(gauges: ScrapedGauge[], options: { name: string; help: string }, read: () => Promise<number>): void {
  gauges.push({ ...options, labelNames: [], read: async () => [[{}, await read()]] });
}

/**
 * How long the gauges may take to read at a scrape: well within Prometheus's default scrape_timeout (10 s),
 * so that /metrics answers with what the process knows while the database is away or stalled.
 */
export const GAUGE_READ_MS = 5_000;

export interface GaugeFailure {
  gauge: string;
  error: unknown;
}

/**
 * The gauges, read now, in a registry of this scrape's own. One that fails or does not answer within
 * `withinMs` is left out (no series rather than a stale one, as exporters do), and
 * fleetplane_database_up says so.
 */
async function readGauges(gauges: readonly ScrapedGauge[], withinMs: number): Promise<{ text: string; failures: GaugeFailure[] }> {
  let timer: NodeJS.Timeout | undefined;
  // ETIMEDOUT: a read the database did not answer in time is the database away, as a connection timing out is.
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${withinMs} ms`), { code: 'ETIMEDOUT' })), withinMs);
  });
  const read = await Promise.all(gauges.map((g) => Promise.race([g.read(), late]).then((series) => ({ series }), (error: unknown) => ({ error }))));
  clearTimeout(timer);
  const registry = new Registry();
  const failures: GaugeFailure[] = [];
  gauges.forEach((g, i) => {
    const result = read[i]!;
    if ('error' in result) return void failures.push({ gauge: g.name, error: result.error });
    const gauge = new Gauge({ name: g.name, help: g.help, labelNames: g.labelNames, registers: [registry] });
    for (const [labels, value] of result.series) gauge.set(labels, value);
  });
  new Gauge({
    name: 'fleetplane_database_up',
    help: 'Whether every gauge read from the database at this scrape (1), or some could not be read in time and are left out (0)',
    registers: [registry],
  }).set(failures.length === 0 ? 1 : 0);
  return { text: await registry.metrics(), failures };
}

/** A gauge registered when it is first set: a series that would mean nothing before (a zero timestamp) is absent instead. */
function gaugeFromFirstValue(registry: Registry, name: string, help: string): (value: number) => void {
  let gauge: Gauge | undefined;
  return (value) => {
    gauge ??= new Gauge({ name, help, registers: [registry] });
    gauge.set(value);
  };
}

/**
 * The Hub's metrics, on prom-client: counters and histograms fed as things happen; gauges that read the
 * database are added to `gauges` by the Hub when it starts (gauges.ts).
 */
export function hubMetrics(gaugeReadMs = GAUGE_READ_MS) {
  const registry = new Registry();
  const gauges: ScrapedGauge[] = [];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  const histogram = <L extends string>(name: string, help: string, buckets: number[], labelNames: readonly L[] = []) =>
    new Histogram<L>({ name, help, buckets, labelNames, registers: [registry] });
  const requestsRefused = counter(
    'fleetplane_http_requests_refused_total',
    'Requests refused 429 overloaded before any work, by class of client (agent|operator) and reason (queue_full: as many waiting as the class may; queue_wait: no place within 10 s)',
    ['class', 'reason'],
  );
  // Every class and reason a series from the start, as the pushes' outcomes below.
  for (const cls of ADMISSION_CLASSES) for (const reason of REFUSED_FOR) requestsRefused.inc({ class: cls, reason }, 0);
  const attemptPushes = counter('fleetplane_attempt_pushes_total', 'Attempts pushed to node control endpoints (node_proxy), by outcome (delivered|failed)', ['outcome']);
  // Both outcomes are series from the start: rate() and increase() then see the first failure.
  for (const outcome of ['delivered', 'failed']) attemptPushes.inc({ outcome }, 0);
  return {
    registry,
    httpRequests: counter('fleetplane_http_requests_total', 'HTTP requests by route and status', ['method', 'route', 'status']),
    httpDuration: histogram('fleetplane_http_request_duration_seconds', 'HTTP request duration', [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 30], [
      'method',
      'route',
    ]),
    eventsAppended: counter('fleetplane_events_appended_total', 'Events appended by this Hub, by type', ['type']),
    requestsRefused,
    accessDenied: counter('fleetplane_access_denied_total', 'Requests refused for lack of a role or node binding', ['route']),
    reportsIngested: counter('fleetplane_reports_ingested_total', 'Node reports accepted'),
    retries: counter('fleetplane_retries_total', 'Retries scheduled after temporary failures'),
    commandReruns: counter(
      'fleetplane_command_reruns_total',
      'Commands run again, by command, reason (deadlock|serialization_failure|stream_moved|idempotency_key_claimed|statement_changed|error) and shared (its group-committed transaction failed)',
      ['command', 'reason', 'shared'],
    ),
    preparedDeallocations: counter(
      'fleetplane_prepared_statements_deallocated_total',
      'Prepared statements a database session of this Hub deallocated to keep within its bound (128 named by their text)',
    ),
    leaseExpiries: counter('fleetplane_lease_expiries_total', 'Dispatched attempts whose lease ran out (now ambiguous)'),
    resyncFound: counter(
      'fleetplane_resync_attempts_queued_total',
      'Attempts queued by the resync: work no pass had taken, though one was asked for or was cut by a crash (expected 0)',
    ),
    attemptPushes,
    backgroundFailures: counter(
      'fleetplane_background_failures_total',
      'Failures an outage explains (the database or the archive away), by the duty that met them as its log line names it: the log says the first of a run, then a line a minute',
      ['duty'],
    ),
    logArchiveFailures: counter(
      'fleetplane_log_archive_failures_total',
      "Runs of this Hub's log archiver that failed (the archive unreachable, a segment refused), each tried again at log.archive_every",
    ),
    httpConnections: new Gauge({ name: 'fleetplane_http_connections', help: 'Client connections open on this Hub now', registers: [registry] }),
    /** Set at start: control_api.max_connections. */
    httpConnectionsLimit: new Gauge({ name: 'fleetplane_http_connections_limit', help: 'Client connections this Hub holds at most (control_api.max_connections)', registers: [registry] }),
    httpConnectionsRefused: counter('fleetplane_http_connections_refused_total', 'Connections closed as they were accepted because this Hub held control_api.max_connections'),
    httpRequestTimeouts: counter(
      'fleetplane_http_request_timeouts_total',
      'Requests answered 408 because their headers or body did not arrive in time (control_api.headers_timeout_ms, request_timeout_ms)',
    ),
    /** Set at start and at each reload of the certificate: a series only on a Hub that serves HTTPS. */
    certificateExpiry: gaugeFromFirstValue(registry, 'fleetplane_tls_certificate_expiry_timestamp_seconds', "When the Hub's serving certificate expires (Unix time): alert well before"),
    /** Set at each measurement of a Hub's clock against the database's (database/database-clock.ts). */
    clockOffset: gaugeFromFirstValue(
      registry,
      'fleetplane_clock_offset_seconds',
      "This host's clock less the database server's, as last measured (every 10 s): the Hub decides on the database's time; alert past 1 s",
    ),
    reconciliationLatency: histogram('fleetplane_reconciliation_latency_seconds', 'From a desired write to the report proving it', [
      0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
    ]),
    gauges,
    /**
     * What /metrics answers: the process's metrics and this Hub's, in Prometheus's text format, within
     * `gaugeReadMs` whatever the database does; `failures` are the gauges left out, and why.
     */
    async exposition(): Promise<{ contentType: string; text: string; failures: GaugeFailure[] }> {
      const [process, hub, read] = await Promise.all([processMetrics().metrics(), registry.metrics(), readGauges(gauges, gaugeReadMs)]);
      return { contentType: registry.contentType, text: process + hub + read.text, failures: read.failures };
    },
  };
}
export type HubMetrics = ReturnType<typeof hubMetrics>;
