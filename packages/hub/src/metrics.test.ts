import { Counter } from './metrics.ts';

test('a series is named by its labels in name order, and label values are escaped as the exposition format asks', () => {
  const counter = new Counter('fleetplane_test_total', 'A test counter.');
  counter.inc({ route: '/a', method: 'GET' });
  counter.inc({ method: 'GET', route: '/a' }, 2);
  counter.inc({ reason: 'say "no"\\ then\nstop' });
  counter.inc();
  expect(counter.render()).toEqual([
    '# HELP fleetplane_test_total A test counter.',
    '# TYPE fleetplane_test_total counter',
    'fleetplane_test_total{method="GET",route="/a"} 3',
    'fleetplane_test_total{reason="say \\"no\\"\\\\ then\\nstop"} 1',
    'fleetplane_test_total 1',
  ]);
  expect(counter.total({ method: 'GET' })).toBe(3);
});
