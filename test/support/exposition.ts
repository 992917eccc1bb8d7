/**
 * A strict parser of Prometheus's text exposition format (version 0.0.4), for tests that scrape /metrics.
 * It throws, naming the line, on anything a Prometheus server would refuse or that the format forbids: a
 * malformed line or label, a bad escape, a value that is not a float, a TYPE after its family's samples or
 * given twice, a family split in two, a series given twice, a histogram whose buckets are not cumulative or
 * lack +Inf, a counter below 0.
 */
export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name: the family's, or for histograms and summaries with _bucket, _sum or _count. */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help: string | null;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES: readonly MetricType[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const typed = new Set<string>();
  const seriesSeen = new Set<string>();
  let current: Family | null = null;
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('the exposition does not end with a line feed');
  const familyOf = (name: string, lineNo: number): Family => {
    if (current?.name === name) return current;
    if (families.has(name)) throw new Error(`line ${lineNo}: family ${name} is split in two`);
    current = { name, type: 'untyped', help: null, samples: [] };
    families.set(name, current);
    return current;
  };

  lines.slice(0, -1).forEach((line, i) => {
    const lineNo = i + 1;
    const fail = (why: string): never => {
      throw new Error(`line ${lineNo}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (!m) return; // a comment
      const [, keyword, name, rest = ''] = m;
      if (METRIC_NAME.exec(name!)?.[0] !== name) fail('not a metric name');
      const family = familyOf(name!, lineNo);
      if (keyword === 'HELP') {
        if (family.help !== null) fail('a second HELP');
        family.help = unescape(rest, false, fail);
      } else {
        if (!TYPES.includes(rest as MetricType)) fail('an unknown TYPE');
        if (family.samples.length > 0) fail('TYPE after the family\'s samples');
        if (typed.has(family.name)) fail('a second TYPE');
        typed.add(family.name);
        family.type = rest as MetricType;
      }
      return;
    }
    const sample = parseSample(line, fail);
    const family = familyOf(familyName(sample.name, current), lineNo);
    if ((family.type === 'histogram' || (family.type === 'summary' && !('quantile' in sample.labels))) && sample.name === family.name) fail(`a ${family.type} sample without its suffix`);
    const key = `${sample.name}{${Object.entries(sample.labels).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`;
    if (seriesSeen.has(key)) fail('a series given twice');
    seriesSeen.add(key);
    if (family.type === 'counter' && !(sample.value >= 0)) fail('a counter below 0');
    family.samples.push(sample);
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

/** A sample's family: its own name, or the family being read when the name is that family's with a histogram's or summary's suffix. */
function familyName(sampleName: string, current: Family | null): string {
  if (current && (current.type === 'histogram' || current.type === 'summary')) {
    for (const suffix of current.type === 'histogram' ? ['_bucket', '_sum', '_count'] : ['_sum', '_count']) {
      if (sampleName === current.name + suffix) return current.name;
    }
  }
  return sampleName;
}

function parseSample(line: string, fail: (why: string) => never): Sample {
  let rest = line;
  const name = METRIC_NAME.exec(rest)?.[0] ?? fail('no metric name');
  rest = rest.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = rest.slice(1);
    while (!rest.startsWith('}')) {
      const label = LABEL_NAME.exec(rest)?.[0] ?? fail('a malformed label name');
      rest = rest.slice(label.length);
      if (!rest.startsWith('="')) fail(`label ${label} is not followed by ="`);
      rest = rest.slice(2);
      let raw = '';
      for (;;) {
        if (rest === '') fail(`label ${label}'s value is not closed`);
        if (rest[0] === '"') break;
        if (rest[0] === '\\') {
          raw += rest.slice(0, 2);
          rest = rest.slice(2);
        } else {
          raw += rest[0];
          rest = rest.slice(1);
        }
      }
      rest = rest.slice(1);
      if (label in labels) fail(`label ${label} given twice`);
      labels[label] = unescape(raw, true, fail);
      if (rest.startsWith(',')) rest = rest.slice(1);
      else if (!rest.startsWith('}')) fail('labels not separated by a comma');
    }
    rest = rest.slice(1);
  }
  const m = /^ +(\S+)(?: +(-?\d+))? *$/.exec(rest) ?? fail('no value, or text after the value and timestamp');
  return { name, labels, value: parseValue(m[1]!, fail) };
}

/** As Prometheus reads a value (Go's ParseFloat): NaN and Inf in any case, as prom-client writes `Nan`. */
function parseValue(text: string, fail: (why: string) => never): number {
  if (/^[+-]?(inf|infinity)$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) fail(`${text} is not a float`);
  return Number(text);
}

/** Label values escape \\, \" and \n; HELP text escapes \\ and \n. */
function unescape(text: string, quoted: boolean, fail: (why: string) => never): string {
  return text.replace(/\\(.?)/g, (_, c: string) => {
    if (c === '\\') return '\\';
    if (c === 'n') return '\n';
    if (c === '"' && quoted) return '"';
    return fail(`the escape \\${c}`);
  });
}

function checkHistogram(family: Family): void {
  const bySeries = new Map<string, Sample[]>();
  for (const s of family.samples) {
    const { le: _le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    bySeries.set(key, [...(bySeries.get(key) ?? []), s]);
  }
  for (const [key, samples] of bySeries) {
    const buckets = samples.filter((s) => s.name === `${family.name}_bucket`);
    if (buckets.some((b) => b.labels.le === undefined)) throw new Error(`${family.name}${key}: a bucket without le`);
    const ordered = buckets.map((b) => ({ le: b.labels.le === '+Inf' ? Infinity : Number(b.labels.le), value: b.value })).sort((a, b) => a.le - b.le);
    if (ordered.at(-1)?.le !== Infinity) throw new Error(`${family.name}${key}: no +Inf bucket`);
    if (ordered.some((b, i) => i > 0 && b.value < ordered[i - 1]!.value)) throw new Error(`${family.name}${key}: buckets not cumulative`);
    const count = samples.find((s) => s.name === `${family.name}_count`);
    if (!count || count.value !== ordered.at(-1)!.value) throw new Error(`${family.name}${key}: _count differs from the +Inf bucket`);
    if (!samples.some((s) => s.name === `${family.name}_sum`)) throw new Error(`${family.name}${key}: no _sum`);
  }
}

/** The value of the one sample named `name` whose labels are exactly `labels`; undefined when there is none. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort());
  for (const family of families.values()) {
    for (const s of family.samples) if (s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === want) return s.value;
  }
  return undefined;
}
