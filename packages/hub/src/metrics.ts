import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

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

/**
 * A gauge of counts by one label, read when scraped. Every value of `values` is a series, at 0 when
 * nothing has it, so an alert on `> 0` sees its series come back to 0. `read` answers [value, count] pairs.
 */
export function countsGauge<V extends string>(
  registry: Registry,
  options: { name: string; help: string; label: string; values: readonly V[] },
  read: () => Promise<Iterable<readonly [string, number]>>,
): Gauge {
  const { name, help, label, values } = options;
  return new Gauge({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    async collect() {
      const counts = new Map(await read());
      this.reset();
      for (const value of new Set([...values, ...counts.keys()])) this.set({ [label]: value }, counts.get(value) ?? 0);
    },
  });
}

/** The sum of a counter's series whose labels include `match`. */
export async function counterTotal(counter: Counter, match: Record<string, string> = {}): Promise<number> {
  const { values } = await counter.get();
  return values.filter((v) => Object.entries(match).every(([name, value]) => v.labels[name] === value)).reduce((sum, v) => sum + v.value, 0);
}

/** A gauge of one number, read when scraped. */
export function valueGauge(registry: Registry, options: { name: string; help: string }, read: () => Promise<number>): Gauge {
  return new Gauge({
    ...options,
    registers: [registry],
    async collect() {
      this.set(await read());
    },
  });
}

/**
 * The Hub's metrics, on prom-client: counters and histograms fed as things happen; gauges that read the
 * database are registered by the Hub when it starts (gauges.ts).
 */
export function hubMetrics() {
  const registry = new Registry();
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  const histogram = <L extends string>(name: string, help: string, buckets: number[], labelNames: readonly L[] = []) =>
    new Histogram<L>({ name, help, buckets, labelNames, registers: [registry] });
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
    logArchiveFailures: counter(
      'fleetplane_log_archive_failures_total',
      "Runs of this Hub's log archiver that failed (the archive unreachable, a segment refused), each tried again at log.archive_every",
    ),
    reconciliationLatency: histogram('fleetplane_reconciliation_latency_seconds', 'From a desired write to the report proving it', [
      0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
    ]),
    /** What /metrics answers: the process's metrics and this Hub's, in Prometheus's text format. */
    async exposition(): Promise<{ contentType: string; text: string }> {
      const [process, hub] = await Promise.all([processMetrics().metrics(), registry.metrics()]);
      return { contentType: registry.contentType, text: process + hub };
    },
  };
}
export type HubMetrics = ReturnType<typeof hubMetrics>;
