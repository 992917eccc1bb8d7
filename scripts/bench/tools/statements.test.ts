import { statementsTable } from './statements.ts';

test('statements are printed per unit of work: in all, then the top ones by server time', () => {
  const statements = [
    { query: 'SELECT append_events($1, $2)', calls: 1_000, ms: 500, planMs: 20 },
    { query: 'UPDATE nodes SET a = $1 | 2', calls: 2_000, ms: 100, planMs: 60 },
    { query: 'COMMIT', calls: 1_000, ms: 10, planMs: 0 },
  ];
  expect(statementsTable('over the span', statements, 1_000, 'report', 2)).toEqual([
    'PostgreSQL statements over the span (pg_stat_statements, top level, all sessions on the database): ' +
      '4.0 statements and 610 µs of execution + planning per report, of which planning 80 µs (tracked only where the server sets pg_stat_statements.track_planning)',
    '',
    '| statement | calls per report | µs per report (exec + plan) | of which planning | µs per call |',
    '| --- | --- | --- | --- | --- |',
    '| `SELECT append_events($1, $2)` | 1.00 | 500 | 20 | 500 |',
    '| `UPDATE nodes SET a = $1 \\| 2` | 2.00 | 100 | 60 | 50 |',
    '',
  ]);
});
