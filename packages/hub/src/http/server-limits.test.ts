import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfigFile } from '../config.ts';
import { descriptorWarning, serverLimits } from './server-limits.ts';

test("the server's limits default to what 10,000 nodes' agents need; a request timeout shorter than the headers' stops the Hub, naming it", () => {
  expect(serverLimits(parseConfigFile('{}', 'f.json').control_api)).toEqual({ maxConnections: 30_000, headersTimeoutMs: 20_000, requestTimeoutMs: 120_000, idleTimeoutMs: 120_000 });
  const set = parseConfigFile('{"control_api": {"max_connections": 500, "headers_timeout_ms": 5000, "request_timeout_ms": 5000}}', 'f.json');
  expect(serverLimits(set.control_api)).toEqual({ maxConnections: 500, headersTimeoutMs: 5_000, requestTimeoutMs: 5_000, idleTimeoutMs: 120_000 });
  expect(() => parseConfigFile('{"control_api": {"headers_timeout_ms": 30000, "request_timeout_ms": 10000}}', 'f.json')).toThrow(
    /at least headers_timeout_ms \(30000\).* at control_api\.request_timeout_ms/,
  );
  expect(() => parseConfigFile('{"control_api": {"max_connections": 0}}', 'f.json')).toThrow(/at control_api\.max_connections/);
});

test('the Hub warns when max_connections does not fit its open-file limit, and only then', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'limits-'));
  const limits = (soft: string) => `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}                 1048576              files\n`;
  try {
    const file = join(dir, 'limits');
    const at = (maxConnections: number) => descriptorWarning({ maxConnections, headersTimeoutMs: 20_000, requestTimeoutMs: 120_000, idleTimeoutMs: 120_000 }, file);
    await writeFile(file, limits('20000'));
    expect(at(30_000)).toBe('control_api.max_connections is 30000 but the Hub may open only 20000 files: raise its limit (ulimit -n, LimitNOFILE) to 31024 or lower max_connections');
    expect(at(18_976)).toBeNull();
    await writeFile(file, limits('unlimited'));
    expect(at(30_000)).toBeNull();
    expect(descriptorWarning({ maxConnections: 30_000, headersTimeoutMs: 1, requestTimeoutMs: 1, idleTimeoutMs: 1 }, join(dir, 'absent'))).toBeNull();
  } finally {
    await rm(dir, { recursive: true });
  }
});
