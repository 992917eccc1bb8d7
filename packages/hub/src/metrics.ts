/**
 * A small Prometheus registry: counters, gauges read at scrape time, and histograms, rendered in the
 * text exposition format for /metrics.
 */
type Labels = Record<string, string>;

interface Metric {
  render(): string[];
}

/** A series' label text, names sorted. Every request feeds several series, so plain values skip the escaping. */
const key = (labels: Labels): string => {
  let text = '';
  for (const name of Object.keys(labels).sort()) {
    const v = labels[name]!;
    const value = /[\\"\n]/.test(v) ? v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : v;
    text += `${text ? ',' : ''}${name}="${value}"`;
  }
  return text;
};

const series = (name: string, labelText: string, value: number): string =>
  `${name}${labelText ? `{${labelText}}` : ''} ${Number.isFinite(value) ? value : 0}`;

export class Counter implements Metric {
  readonly #values = new Map<string, { labels: Labels; value: number }>();
  readonly #name: string;
  readonly #help: string;
  constructor(name: string, help: string) {
    this.#name = name;
    this.#help = help;
  }
  inc(labels: Labels = {}, by = 1): void {
    const k = key(labels);
    const current = this.#values.get(k);
    if (current) current.value += by;
    else this.#values.set(k, { labels: { ...labels }, value: by });
  }
  /** The sum of every series whose labels include `match`. */
  total(match: Labels = {}): number {
    let sum = 0;
    for (const { labels, value } of this.#values.values()) {
      if (Object.entries(match).every(([name, v]) => labels[name] === v)) sum += value;
    }
    return sum;
  }
  render(): string[] {
    return [
      `# HELP ${this.#name} ${this.#help}`,
      `# TYPE ${this.#name} counter`,
      ...[...this.#values].map(([k, { value }]) => series(this.#name, k, value)),
    ];
  }
}

/** A gauge whose samples are read when scraped (queue depth, blocked intents…). */
export class Gauge implements Metric {
  readonly #name: string;
  readonly #help: string;
  readonly #collect: () => Promise<Array<[Labels, number]>> | Array<[Labels, number]>;
  #last: Array<[Labels, number]> = [];
  constructor(name: string, help: string, collect: () => Promise<Array<[Labels, number]>> | Array<[Labels, number]>) {
    this.#name = name;
    this.#help = help;
    this.#collect = collect;
  }
  async refresh(): Promise<void> {
    this.#last = await this.#collect();
  }
  render(): string[] {
    return [
      `# HELP ${this.#name} ${this.#help}`,
      `# TYPE ${this.#name} gauge`,
      ...this.#last.map(([labels, v]) => series(this.#name, key(labels), v)),
    ];
  }
}

export class Histogram implements Metric {
  readonly #name: string;
  readonly #help: string;
  readonly #buckets: number[];
  readonly #data = new Map<string, { counts: number[]; sum: number; count: number }>();
  constructor(name: string, help: string, buckets: number[]) {
    this.#name = name;
    this.#help = help;
    this.#buckets = [...buckets].sort((a, b) => a - b);
  }
  observe(value: number, labels: Labels = {}): void {
    const k = key(labels);
    const d = this.#data.get(k) ?? { counts: this.#buckets.map(() => 0), sum: 0, count: 0 };
    this.#buckets.forEach((b, i) => {
      if (value <= b) d.counts[i]!++;
    });
    d.sum += value;
    d.count++;
    this.#data.set(k, d);
  }
  render(): string[] {
    const lines = [`# HELP ${this.#name} ${this.#help}`, `# TYPE ${this.#name} histogram`];
    for (const [k, d] of this.#data) {
      const sep = k ? ',' : '';
      this.#buckets.forEach((b, i) => lines.push(`${this.#name}_bucket{${k}${sep}le="${b}"} ${d.counts[i]}`));
      lines.push(`${this.#name}_bucket{${k}${sep}le="+Inf"} ${d.count}`);
      lines.push(series(`${this.#name}_sum`, k, d.sum), series(`${this.#name}_count`, k, d.count));
    }
    return lines;
  }
}

export class Registry {
  readonly #metrics: Metric[] = [];
  register<M extends Metric>(metric: M): M {
    this.#metrics.push(metric);
    return metric;
  }
  async render(): Promise<string> {
    await Promise.all(this.#metrics.filter((m): m is Gauge => m instanceof Gauge).map((g) => g.refresh()));
    return this.#metrics.flatMap((m) => m.render()).join('\n') + '\n';
  }
}

/** The Hub's metrics. Gauges that read the database are registered by the Hub when it starts. */
export function hubMetrics() {
  const registry = new Registry();
  return {
    registry,
    httpRequests: registry.register(new Counter('fleetplane_http_requests_total', 'HTTP requests by route and status')),
    httpDuration: registry.register(
      new Histogram('fleetplane_http_request_duration_seconds', 'HTTP request duration', [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 30]),
    ),
    eventsAppended: registry.register(new Counter('fleetplane_events_appended_total', 'Events appended by this Hub, by type')),
    accessDenied: registry.register(new Counter('fleetplane_access_denied_total', 'Requests refused for lack of a role or node binding')),
    reportsIngested: registry.register(new Counter('fleetplane_reports_ingested_total', 'Node reports accepted')),
    retries: registry.register(new Counter('fleetplane_retries_total', 'Retries scheduled after temporary failures')),
    commandReruns: registry.register(
      new Counter(
        'fleetplane_command_reruns_total',
        'Commands run again, by command, reason (deadlock|serialization_failure|stream_moved|idempotency_key_claimed|error) and shared (its group-committed transaction failed)',
      ),
    ),
    leaseExpiries: registry.register(new Counter('fleetplane_lease_expiries_total', 'Dispatched attempts whose lease ran out (now ambiguous)')),
    attemptPushes: registry.register(
      new Counter('fleetplane_attempt_pushes_total', 'Attempts pushed to node control endpoints (node_proxy), by outcome (delivered|failed)'),
    ),
    logArchiveFailures: registry.register(
      new Counter('fleetplane_log_archive_failures_total', "Runs of this Hub's log archiver that failed (the archive unreachable, a segment refused), each tried again at log.archive_every"),
    ),
    reconciliationLatency: registry.register(
      new Histogram('fleetplane_reconciliation_latency_seconds', 'From a desired write to the report proving it', [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]),
    ),
  };
}
export type HubMetrics = ReturnType<typeof hubMetrics>;
