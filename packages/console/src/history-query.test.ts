import { eventsQuery, isoToLocal, localToIso, oneEventQuery, readView, viewUrl } from './history-query.ts';

// Issue 22 item 5: what the History page shows is its URL.

test('issue 22: a view survives its URL: filters, order and the selected event, defaults left out', () => {
  const view = { filters: { type: 'AttemptFailed,IntentBlocked', stream_id: 'node:edge-1', since: '2026-05-01T10:00:00.000Z' }, order: 'oldest' as const, event: '812-4711' };
  const url = viewUrl(view);
  expect(url).toBe('/history?stream_id=node%3Aedge-1&type=AttemptFailed%2CIntentBlocked&since=2026-05-01T10%3A00%3A00.000Z&order=oldest&event=812-4711');
  expect(readView(url.slice(url.indexOf('?')))).toEqual(view);
  expect(viewUrl({ filters: {}, order: 'newest', event: null })).toBe('/history');
  expect(readView('')).toEqual({ filters: {}, order: 'newest', event: null });
  // Anything but `oldest` is the default order; unknown parameters are ignored.
  expect(readView('?order=sideways&bogus=1')).toEqual({ filters: {}, order: 'newest', event: null });
});

test('issue 22: reads newest first page back with before; one event is read by the cursor just before it', () => {
  expect(eventsQuery({ type: 'NodeRegistered' }, { newestFirst: true, before: '9-12' })).toBe('/api/v1/events?limit=100&reports=changed&type=NodeRegistered&order=desc&before=9-12');
  expect(eventsQuery({ reports: 'all' }, { after: '9-12' })).toBe('/api/v1/events?limit=100&reports=all&after=9-12');
  expect(oneEventQuery('812-4711')).toBe('/api/v1/events?limit=1&reports=all&after=812-4710');
  expect(oneEventQuery('not-a-cursor')).toBeNull();
});

test('issue 22: times are local in the form and ISO 8601 in the URL', () => {
  const local = '2026-05-01T10:30';
  expect(isoToLocal(localToIso(local))).toBe(local);
  expect(localToIso('')).toBe('');
  expect(isoToLocal('garbage')).toBe('');
});
