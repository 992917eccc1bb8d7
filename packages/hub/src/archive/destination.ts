import { createHash } from 'node:crypto';
import { ArchiveError } from './archive-error.ts';

export interface StoredObject {
  name: string;
  /** Bytes. */
  size: number;
}

/**
 * Where archived segment files go: a directory or an S3-compatible bucket. Names are relative paths
 * (`segments/00000000000001000000.seg`); an object is either there whole or not at all, never half-written.
 * Every failure to reach the destination is an ArchiveError `archive_destination_failed` naming it.
 */
export interface Destination {
  /** The destination in URL form (`file:///…`, `s3://bucket/prefix/`), for messages and logs. */
  readonly url: string;
  /** Stores the object under the name atomically, replacing any object of that name; durable when it resolves. */
  put(name: string, bytes: Uint8Array): Promise<void>;
  /** The object's bytes, or undefined when there is none of that name. */
  get(name: string): Promise<Buffer | undefined>;
  /** The object's first `bytes` bytes (all of it when it is shorter), or undefined when there is none: a file's header without the rest. */
  getStart(name: string, bytes: number): Promise<Buffer | undefined>;
  head(name: string): Promise<StoredObject | undefined>;
  /** The objects whose names begin with the prefix, sorted by name. */
  list(prefix: string): Promise<StoredObject[]>;
  /** Removes the object; removing one that is not there is no error. */
  delete(name: string): Promise<void>;
}

export interface Expected {
  size: number;
  /** Hex. */
  sha256: string;
}

/**
 * The object's bytes, provided they are exactly the ones recorded when it was archived: a missing object, one
 * cut short by an interrupted upload or copy, and one altered since are each refused with their own code.
 */
export async function readVerified(destination: Destination, name: string, expected: Expected): Promise<Buffer> {
  const where = `${name} in ${destination.url}`;
  const bytes = await destination.get(name);
  if (bytes === undefined) throw new ArchiveError('archive_object_missing', `archived object ${where} is missing`);
  if (bytes.length !== expected.size) {
    throw new ArchiveError('archive_object_damaged', `archived object ${where} holds ${bytes.length} bytes where ${expected.size} were archived`);
  }
  const digest = createHash('sha256').update(bytes).digest('hex');
  if (digest !== expected.sha256) {
    throw new ArchiveError('archive_object_damaged', `archived object ${where} has SHA-256 ${digest} where ${expected.sha256} was archived`);
  }
  return bytes;
}

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Path segments of letters, digits, `.`, `_` and `-`, none empty or starting with a dot (a directory's temporary files do). */
export function checkObjectName(name: string): string {
  if (typeof name !== 'string' || name.length > 512 || !name.split('/').every((s) => SEGMENT.test(s))) {
    throw new ArchiveError('archive_object_name_invalid', `${JSON.stringify(name)} is not an archive object name: path segments of letters, digits, '.', '_' and '-', none empty or starting with '.'`);
  }
  return name;
}

/** A name's beginning: whole segments, then possibly part of the last one. */
export function checkPrefix(prefix: string): string {
  if (prefix === '') return prefix;
  const segments = prefix.split('/');
  const last = segments.pop()!;
  if (segments.some((s) => !SEGMENT.test(s)) || (last !== '' && !SEGMENT.test(last))) {
    throw new ArchiveError('archive_object_name_invalid', `${JSON.stringify(prefix)} is not a prefix of archive object names`);
  }
  return prefix;
}

/** Runs a destination operation, turning any failure into archive_destination_failed naming the destination and the object. */
export async function attempt<T>(url: string, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof ArchiveError) throw e;
    throw new ArchiveError('archive_destination_failed', `archive ${url}: cannot ${what}: ${(e as Error).message}`, { cause: e });
  }
}
