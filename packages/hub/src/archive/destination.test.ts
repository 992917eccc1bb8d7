import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { refusal } from '../../../../test/support/refusal.ts';
import { TEST_BUCKET as BUCKET, TestS3Server } from '../../../../test/support/s3.ts';
import type { ArchiveError } from './archive-error.ts';
import { readVerified, type Destination } from './destination.ts';
import { openDestination, parseDestination } from './destination-url.ts';

let scratch: string;
let s3: TestS3Server;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'fleetplane-archive-'));
  s3 = await TestS3Server.start(scratch);
});

afterAll(async () => {
  await s3.close();
  await rm(scratch, { recursive: true, force: true });
});

const digest = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const segment = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 251));

let run = 0;
const kinds: Array<[string, () => Destination]> = [
  ['a directory', () => openDestination(parseDestination(join(scratch, `dir-${++run}`)))],
  ['an S3 bucket (local S3-compatible server)', () => openDestination(parseDestination(`s3://${BUCKET}/hub-${++run}/archive`))],
];

describe.each(kinds)('archive destination: %s', (_, open) => {
  let destination: Destination;
  beforeEach(() => {
    destination = open();
  });

  test('stores, reads back, lists by prefix in name order, and deletes objects', async () => {
    await destination.put('segments/0000000200.seg', segment);
    await destination.put('segments/0000000100.seg', Buffer.from('first'));
    await destination.put('checkpoints/0000000100.json', Buffer.from('{}'));

    expect(await destination.get('segments/0000000200.seg')).toEqual(segment);
    expect(await destination.getStart('segments/0000000200.seg', 1000)).toEqual(segment.subarray(0, 1000));
    expect(await destination.getStart('segments/0000000100.seg', 1000)).toEqual(Buffer.from('first'));
    expect(await destination.getStart('segments/0000000300.seg', 1000)).toBeUndefined();
    expect(await destination.head('segments/0000000200.seg')).toEqual({ name: 'segments/0000000200.seg', size: segment.length });
    expect(await destination.list('segments/')).toEqual([
      { name: 'segments/0000000100.seg', size: 5 },
      { name: 'segments/0000000200.seg', size: segment.length },
    ]);
    expect(await destination.list('segments/00000002')).toEqual([{ name: 'segments/0000000200.seg', size: segment.length }]);
    expect((await destination.list('')).map((o) => o.name)).toEqual(['checkpoints/0000000100.json', 'segments/0000000100.seg', 'segments/0000000200.seg']);
    expect(await destination.list('nothing/')).toEqual([]);

    await destination.put('segments/0000000100.seg', Buffer.from('replaced'));
    expect(await destination.get('segments/0000000100.seg')).toEqual(Buffer.from('replaced'));

    await destination.delete('segments/0000000100.seg');
    await destination.delete('segments/0000000100.seg');
    expect(await destination.get('segments/0000000100.seg')).toBeUndefined();
    expect(await destination.head('segments/0000000100.seg')).toBeUndefined();
    expect((await destination.list('segments/')).map((o) => o.name)).toEqual(['segments/0000000200.seg']);
  });

  test('issue 19: a missing, cut-short or altered object is refused on read by its size or SHA-256', async () => {
    const recorded = { size: segment.length, sha256: digest(segment) };
    await destination.put('segments/a.seg', segment);
    expect(await readVerified(destination, 'segments/a.seg', recorded)).toEqual(segment);

    const missing = await refusal<ArchiveError>(readVerified(destination, 'segments/b.seg', recorded));
    expect(missing.code).toBe('archive_object_missing');
    expect(missing.message).toBe(`archived object segments/b.seg in ${destination.url} is missing`);

    await destination.put('segments/a.seg', segment.subarray(0, 40_000));
    const short = await refusal<ArchiveError>(readVerified(destination, 'segments/a.seg', recorded));
    expect(short.code).toBe('archive_object_damaged');
    expect(short.message).toBe(`archived object segments/a.seg in ${destination.url} holds 40000 bytes where 70000 were archived`);

    const altered = Buffer.from(segment);
    altered[12_345] = altered[12_345]! ^ 0x80;
    await destination.put('segments/a.seg', altered);
    const changed = await refusal<ArchiveError>(readVerified(destination, 'segments/a.seg', recorded));
    expect(changed.code).toBe('archive_object_damaged');
    expect(changed.message).toBe(`archived object segments/a.seg in ${destination.url} has SHA-256 ${digest(altered)} where ${recorded.sha256} was archived`);
  });

  test.each(['', '../escape.seg', '/absolute.seg', 'segments//a.seg', 'segments/.hidden', 'segments/', 'a b.seg'])(
    'refuses the object name %j before touching the destination',
    async (name) => {
      for (const operation of [() => destination.put(name, segment), () => destination.get(name), () => destination.getStart(name, 14), () => destination.head(name), () => destination.delete(name)]) {
        expect((await refusal<ArchiveError>(operation())).code).toBe('archive_object_name_invalid');
      }
      expect(await destination.list('')).toEqual([]);
    },
  );
});

test('a directory: a write interrupted by a crash leaves no object of its name, and its temporary file is never listed', async () => {
  const root = join(scratch, 'crashed');
  const destination = openDestination(parseDestination(`file://${root}`));
  await destination.put('segments/0000000100.seg', segment);
  // What a crash between writing and renaming leaves behind.
  await writeFile(join(root, 'segments', '.0000000200.seg.3f2a9c.partial'), segment.subarray(0, 1000));

  expect(await destination.list('segments/')).toEqual([{ name: 'segments/0000000100.seg', size: segment.length }]);
  expect((await refusal<ArchiveError>(readVerified(destination, 'segments/0000000200.seg', { size: segment.length, sha256: digest(segment) }))).code).toBe('archive_object_missing');
  await destination.put('segments/0000000200.seg', segment);
  expect(await readVerified(destination, 'segments/0000000200.seg', { size: segment.length, sha256: digest(segment) })).toEqual(segment);
  expect((await readdir(join(root, 'segments'))).filter((f) => f.endsWith('.partial') && !f.includes('3f2a9c'))).toEqual([]);
});

test('an S3 bucket: an upload cut off mid-body, which some S3-compatible servers keep as a short object, is refused on read', async () => {
  const destination = openDestination(parseDestination(`s3://${BUCKET}/interrupted`));
  await new Promise<void>((done) => {
    const request = http.request({ host: '127.0.0.1', port: s3.port, method: 'PUT', path: `/${BUCKET}/interrupted/segments/a.seg`, headers: { 'content-length': segment.length } });
    request.on('error', () => done());
    request.write(segment.subarray(0, 30_000), () => setTimeout(() => request.destroy(), 200));
  });
  const stored = await destination.head('segments/a.seg');
  expect(stored === undefined || stored.size < segment.length).toBe(true);
  const refused = await refusal<ArchiveError>(readVerified(destination, 'segments/a.seg', { size: segment.length, sha256: digest(segment) }));
  expect(['archive_object_missing', 'archive_object_damaged']).toContain(refused.code);
});

test('an S3 bucket: AWS_ENDPOINT_URL serves too, when no S3-specific endpoint is set', async () => {
  s3.useEndpoint('AWS_ENDPOINT_URL');
  try {
    const destination = openDestination(parseDestination(`s3://${BUCKET}/generic-endpoint`));
    await destination.put('a.seg', Buffer.from('via AWS_ENDPOINT_URL'));
    expect(await destination.get('a.seg')).toEqual(Buffer.from('via AWS_ENDPOINT_URL'));
  } finally {
    s3.useEndpoint();
  }
});

test('an unreachable destination fails with archive_destination_failed, naming it and the object', async () => {
  const closed = http.createServer();
  await new Promise<void>((listening) => closed.listen(0, '127.0.0.1', listening));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((stopped) => closed.close(stopped));
  s3.useEndpoint('AWS_ENDPOINT_URL_S3', port);
  try {
    const bucket = openDestination(parseDestination(`s3://${BUCKET}/away`));
    const failed = await refusal<ArchiveError>(bucket.put('segments/a.seg', segment));
    expect(failed.code).toBe('archive_destination_failed');
    expect(failed.message).toMatch(new RegExp(`^archive s3://${BUCKET}/away/: cannot write segments/a\\.seg: `));
  } finally {
    s3.useEndpoint();
  }

  const file = join(scratch, 'not-a-directory');
  await writeFile(file, 'x');
  const directory = openDestination(parseDestination(file));
  const failed = await refusal<ArchiveError>(directory.put('segments/a.seg', segment));
  expect(failed.code).toBe('archive_destination_failed');
  expect(failed.message).toMatch(new RegExp(`^archive file://${file}: cannot write segments/a\\.seg: ENOTDIR`));
});
