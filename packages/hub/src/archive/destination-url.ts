import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ArchiveError } from './archive-error.ts';
import type { Destination } from './destination.ts';
import { DirectoryDestination } from './directory-destination.ts';
import { S3Destination } from './s3-destination.ts';

export type DestinationSpec =
  | { kind: 'directory'; path: string; url: string }
  | { kind: 's3'; bucket: string; prefix: string; url: string };

const FORMS = 'expected file:///absolute/path, a directory path, or s3://bucket/prefix';
/** S3's rules for bucket names, which S3-compatible servers share: 3 to 63 of a-z 0-9 . -, a letter or digit at each end. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** Key characters S3 documents as safe in any tool; a prefix is made of segments of them. */
const PREFIX_SEGMENT = /^[A-Za-z0-9!_.*'()-]+$/;

/**
 * An archive destination from its configured form: `file:///path` or a plain path (relative to the working
 * directory) for a directory, `s3://bucket` or `s3://bucket/prefix` for a bucket. Anything else is refused with
 * `archive_destination_invalid`, naming the value and what is wrong with it.
 */
export function parseDestination(value: string): DestinationSpec {
  const refuse = (why: string) => new ArchiveError('archive_destination_invalid', `archive destination ${JSON.stringify(value)} is not usable: ${why} (${FORMS})`);
  if (typeof value !== 'string' || value.trim() === '') throw refuse('it is empty');
  if (value !== value.trim()) throw refuse('it begins or ends with white space');
  if (/[\u0000-\u001f]/.test(value)) throw refuse('it holds a control character');

  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase();
  if (scheme === 's3') {
    const m = /^s3:\/\/([^/?#]*)(\/[^?#]*)?$/i.exec(value);
    if (!m) throw refuse('an s3 URL has no query, fragment or user, and is s3://bucket/prefix');
    const bucket = m[1]!;
    if (!BUCKET.test(bucket) || bucket.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(bucket)) {
      throw refuse(`${JSON.stringify(bucket)} is not a bucket name: 3 to 63 lower-case letters, digits, '.' and '-', beginning and ending with a letter or digit`);
    }
    const path = (m[2] ?? '/').slice(1);
    const segments = path === '' ? [] : path.replace(/\/$/, '').split('/');
    const bad = segments.find((s) => !PREFIX_SEGMENT.test(s) || s === '.' || s === '..');
    if (bad !== undefined) throw refuse(`its prefix has the segment ${JSON.stringify(bad)}: letters, digits and !_.*'()- only, no empty, '.' or '..' segment`);
    const prefix = segments.map((s) => `${s}/`).join('');
    return { kind: 's3', bucket, prefix, url: `s3://${bucket}/${prefix}` };
  }
  if (scheme === 'file') {
    let path: string;
    try {
      const url = new URL(value);
      if (url.search !== '' || url.hash !== '') throw new Error('a file URL has no query or fragment');
      path = fileURLToPath(url);
    } catch (e) {
      throw refuse((e as Error).message);
    }
    return directory(path);
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)) throw refuse(`the scheme ${scheme}: is not supported`);
  return directory(isAbsolute(value) ? value : resolve(value));
}

function directory(path: string): DestinationSpec {
  const normal = resolve(path);
  return { kind: 'directory', path: normal, url: pathToFileURL(normal).href };
}

export function openDestination(spec: DestinationSpec, env: NodeJS.ProcessEnv = process.env): Destination {
  return spec.kind === 'directory' ? new DirectoryDestination(spec.path) : new S3Destination(spec, env);
}
