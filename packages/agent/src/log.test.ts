import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../../test/support/ports.ts';
import { HubClient, HubError, HubUnreachable } from './hub-client.ts';
import { errorFields } from './log.ts';

const report = { node_id: 'edge-1', boot_id: 'b', report_seq: 1, full: true, streams: [] };

test('a Hub that refuses connections: the logged error names the cause and the call, not only "fetch failed"', async () => {
  const client = new HubClient(`http://127.0.0.1:${await freePort()}`, 'token', 2000);
  const error = await client.report(report).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(HubUnreachable);
  expect(errorFields(error)).toEqual({
    error: 'POST /api/v1/agent/reports: no answer from the Hub',
    cause: expect.stringMatching(/^fetch failed: .*ECONNREFUSED/),
    correlation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
  });
});

test("a Hub's refusal is logged with its status, code and the correlation id the request carried", async () => {
  let seen: IncomingHttpHeaders = {};
  const server = createServer((req, res) => {
    seen = req.headers;
    res.writeHead(409, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'stale_report', message: 'older than the last' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const client = new HubClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'token');
    const error = await client.report(report).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HubError);
    expect(errorFields(error)).toEqual({ error: '409 stale_report: older than the last', code: 'stale_report', status: 409, correlation_id: seen['x-correlation-id'] });
    expect(seen['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
  } finally {
    await new Promise((r) => server.close(r));
  }
});

test('errorFields: every cause in the chain, with the codes of an AggregateError\'s reasons', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED ::1:8080'), { code: 'ECONNREFUSED' });
  const timedOut = Object.assign(new Error(''), { code: 'ETIMEDOUT' });
  const error = new Error('fetch failed', { cause: new AggregateError([refused, timedOut], '') });
  expect(errorFields(error)).toEqual({ error: 'fetch failed', cause: 'AggregateError connect ECONNREFUSED ::1:8080; ETIMEDOUT' });
  expect(errorFields('plain text')).toEqual({ error: 'plain text' });
});
