import { parseExposition, sampleValue } from '../../../test/support/exposition.ts';
import { counterTotal, countsGauge, hubMetrics } from './metrics.ts';

test("issue 22: the Hub's exposition parses strictly, with the process's metrics and label values escaped", async () => {
  const metrics = hubMetrics();
  metrics.commandReruns.inc({ command: 'say "no"\\ then\nstop', reason: 'error', shared: 'false' });
  metrics.commandReruns.inc({ command: 'Other', reason: 'deadlock', shared: 'true' }, 2);
  metrics.httpDuration.observe({ method: 'GET', route: '/a' }, 0.02);
  const { text, contentType } = await metrics.exposition();
  expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  const families = parseExposition(text);
  for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
    expect([name, families.get(name)?.samples.length]).toEqual([name, 1]);
  }
  expect(families.get('nodejs_gc_duration_seconds')?.type).toBe('histogram');
  expect(sampleValue(families, 'fleetplane_command_reruns_total', { command: 'say "no"\\ then\nstop', reason: 'error', shared: 'false' })).toBe(1);
  expect(sampleValue(families, 'fleetplane_http_request_duration_seconds_bucket', { method: 'GET', route: '/a', le: '0.025' })).toBe(1);
  expect(sampleValue(families, 'fleetplane_http_request_duration_seconds_bucket', { method: 'GET', route: '/a', le: '0.01' })).toBe(0);
  // Counters without labels, and pushes by either outcome, are series before anything happened.
  expect(sampleValue(families, 'fleetplane_retries_total')).toBe(0);
  expect(sampleValue(families, 'fleetplane_prepared_statements_deallocated_total')).toBe(0);
  expect(sampleValue(families, 'fleetplane_attempt_pushes_total', { outcome: 'failed' })).toBe(0);
  expect(await counterTotal(metrics.commandReruns)).toBe(3);
  expect(await counterTotal(metrics.commandReruns, { shared: 'true' })).toBe(2);
});

test('issue 22: a gauge by state has every state at every scrape, at 0 when empty, and keeps a state it did not list', async () => {
  const metrics = hubMetrics();
  let counts: Array<[string, number]> = [['blocked', 2], ['unlisted', 1]];
  countsGauge(metrics.gauges, { name: 'test_intents', help: 'Intents by state', label: 'state', values: ['pending', 'blocked'] }, async () => counts);
  const scrape = async () => parseExposition((await metrics.exposition()).text).get('test_intents')!.samples.map((s) => [s.labels.state, s.value]);
  expect(await scrape()).toEqual([['pending', 0], ['blocked', 2], ['unlisted', 1]]);
  counts = [];
  expect(await scrape()).toEqual([['pending', 0], ['blocked', 0]]);
});

test('the strict parser of the exposition refuses what the text format forbids', () => {
  const valid = '# HELP a_total A.\n# TYPE a_total counter\na_total{x="1"} 2\n';
  expect(parseExposition(valid).get('a_total')).toEqual({ name: 'a_total', type: 'counter', help: 'A.', samples: [{ name: 'a_total', labels: { x: '1' }, value: 2 }] });
  const refused: Array<[string, RegExp]> = [
    ['a 1', /line feed/],
    ['a{x="1} 1\n', /not closed/],
    ['a{x=1} 1\n', /not followed by ="/],
    ['a{x="\\t"} 1\n', /escape/],
    ['a{x="1" y="2"} 1\n', /comma/],
    ['a{x="1",x="2"} 1\n', /twice/],
    ['a one\n', /not a float/],
    ['a 1 2 3\n', /after the value/],
    ['# TYPE a gauge\n# TYPE a gauge\na 1\n', /second TYPE/],
    ['a 1\n# TYPE a gauge\n', /TYPE after/],
    ['# TYPE a wobbly\n', /unknown TYPE/],
    ['a 1\nb 1\na{x="1"} 2\n', /split in two/],
    ['a 1\na 2\n', /given twice/],
    ['# TYPE a counter\na -1\n', /below 0/],
    ['# TYPE h histogram\nh 1\n', /without its suffix/],
    ['# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n', /not cumulative/],
    ['# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n', /no \+Inf/],
    ['# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 1\n', /_count differs/],
  ];
  for (const [text, why] of refused) expect(() => parseExposition(text)).toThrow(why);
});
