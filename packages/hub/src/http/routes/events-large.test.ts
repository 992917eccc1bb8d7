import { randomBytes } from 'node:crypto';
import { TOKENS } from '../../../../../test/support/hub.ts';
import { eventually } from '../../../../../test/support/fleet.ts';
import { hubSuite } from '../../../../../test/support/hub-suite.ts';
import { READ_DATA_BYTES } from '../../event-store/read-all.ts';

// A page of history holds at most READ_DATA_BYTES of events' data (the first event always), however large the
// limit: a page of a thousand configuration versions of a MiB each was more text than one JSON answer holds (a
// 500 after half a minute, with a GiB in the Hub). The rest is on the next page.

const suite = hubSuite();

const MiB = 1024 * 1024;
/** Enough versions of about a MiB each to fill more than one page. */
const COUNT = Math.ceil(READ_DATA_BYTES / MiB) + 4;

async function versions(content: (i: number) => string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    const r = await suite.hub.call('POST', '/api/v1/config-versions', { token: TOKENS.operator, body: { content: content(i), format: 'text' } });
    expect(r.status).toBe(201);
    ids.push(r.body.config_version);
  }
  return ids;
}

/** Every page of `ConfigVersionCreated` events from `query`, following next_cursor as `cursor`. */
async function pages(query: string, cursor: 'after' | 'before'): Promise<Array<{ ids: string[]; bytes: number }>> {
  const read: Array<{ ids: string[]; bytes: number }> = [];
  let next: string | null = null;
  do {
    const r = await suite.hub.call('GET', `/api/v1/events?type=ConfigVersionCreated&limit=1000&${query}${next ? `&${cursor}=${next}` : ''}`, { token: TOKENS.viewer });
    expect(r.status).toBe(200);
    read.push({ ids: r.body.items.map((e: { data: { config_version: string } }) => e.data.config_version), bytes: JSON.stringify(r.body).length });
    next = r.body.next_cursor;
  } while (next !== null && read.length <= COUNT);
  return read;
}

test.each([
  // Stored as it is: the read's own bound ends the page.
  ['text that does not compress', (i: number) => `${i}:` + randomBytes(760 * 1024).toString('base64')],
  // Stored in a few KB: the answer is cut again by its text.
  ['text that compresses to a few KB', (i: number) => `${i}:` + 'a'.repeat(MiB - 64)],
])('J4 a page of history holds at most its bound of events\' data, with next_cursor to the rest, both ways: %s', async (_, content) => {
  const ids = await versions(content);
  // The log is read commit-safe: an event is readable once every transaction older than its own has ended,
  // on a server other sessions share too. The last version readable, so are the others.
  await eventually(async () => {
    const newest = await suite.hub.call('GET', '/api/v1/events?type=ConfigVersionCreated&order=desc&limit=1', { token: TOKENS.viewer });
    return newest.body.items[0]?.data.config_version === ids.at(-1) ? true : undefined;
  }, 60_000);
  const after = (await pages('order=asc', 'after')).filter((p) => p.ids.some((id) => ids.includes(id)));
  expect(after.length).toBeGreaterThan(1);
  for (const page of after) expect(page.bytes).toBeLessThan(READ_DATA_BYTES + 2 * MiB);
  expect(after.flatMap((p) => p.ids).filter((id) => ids.includes(id))).toEqual(ids);

  const before = await pages('order=desc', 'before');
  expect(before.length).toBeGreaterThan(1);
  for (const page of before) expect(page.bytes).toBeLessThan(READ_DATA_BYTES + 2 * MiB);
  expect(before.flatMap((p) => p.ids).filter((id) => ids.includes(id))).toEqual([...ids].reverse());
}, 120_000);
