import { resolve } from 'node:path';
import type { ArchiveError } from './archive-error.ts';
import { parseDestination } from './destination-url.ts';

describe('archive destination URLs', () => {
  test.each([
    ['file:///var/lib/fleetplane/archive', { kind: 'directory', path: '/var/lib/fleetplane/archive', url: 'file:///var/lib/fleetplane/archive' }],
    ['file://localhost/srv/archive/', { kind: 'directory', path: '/srv/archive', url: 'file:///srv/archive' }],
    ['file:///srv/fleet%20archive', { kind: 'directory', path: '/srv/fleet archive', url: 'file:///srv/fleet%20archive' }],
    ['/srv/archive/../archive2', { kind: 'directory', path: '/srv/archive2', url: 'file:///srv/archive2' }],
    ['archive', { kind: 'directory', path: resolve('archive'), url: `file://${resolve('archive')}` }],
    ['s3://fleet-archive', { kind: 's3', bucket: 'fleet-archive', prefix: '', url: 's3://fleet-archive/' }],
    ['s3://fleet-archive/', { kind: 's3', bucket: 'fleet-archive', prefix: '', url: 's3://fleet-archive/' }],
    ['s3://fleet.archive-1/prod/eu-west', { kind: 's3', bucket: 'fleet.archive-1', prefix: 'prod/eu-west/', url: 's3://fleet.archive-1/prod/eu-west/' }],
    ['S3://logs/hub_1/', { kind: 's3', bucket: 'logs', prefix: 'hub_1/', url: 's3://logs/hub_1/' }],
  ])('%s', (value, spec) => {
    expect(parseDestination(value)).toEqual(spec);
  });

  test.each([
    ['', 'it is empty'],
    [' /srv/archive', 'it begins or ends with white space'],
    ['/srv/arch\nive', 'it holds a control character'],
    ['https://s3.amazonaws.com/fleet', 'the scheme https: is not supported'],
    ['gs://fleet-archive/prod', 'the scheme gs: is not supported'],
    ['s3://', '"" is not a bucket name'],
    ['s3:fleet-archive', 'an s3 URL has no query, fragment or user, and is s3://bucket/prefix'],
    ['s3://Fleet_Archive/prod', '"Fleet_Archive" is not a bucket name'],
    ['s3://ab', '"ab" is not a bucket name'],
    ['s3://192.168.1.10', '"192.168.1.10" is not a bucket name'],
    ['s3://fleet..archive', '"fleet..archive" is not a bucket name'],
    ['s3://fleet-archive:9000/prod', '"fleet-archive:9000" is not a bucket name'],
    ['s3://key:secret@fleet-archive/prod', '"key:secret@fleet-archive" is not a bucket name'],
    ['s3://fleet-archive/prod?versioning=1', 'an s3 URL has no query, fragment or user'],
    ['s3://fleet-archive/prod//eu', 'its prefix has the segment ""'],
    ['s3://fleet-archive/prod/../other', 'its prefix has the segment ".."'],
    ['s3://fleet-archive/prod%20eu', 'its prefix has the segment "prod%20eu"'],
    ['file://nas/archive', 'File URL host must be "localhost" or empty on linux'],
    ['file:///srv/archive?x=1', 'a file URL has no query or fragment'],
  ])('refuses %j, naming it and what is wrong', (value, why) => {
    let refused: ArchiveError | undefined;
    try {
      parseDestination(value);
    } catch (e) {
      refused = e as ArchiveError;
    }
    expect(refused?.code).toBe('archive_destination_invalid');
    expect(refused?.message).toContain(`archive destination ${JSON.stringify(value)} is not usable: ${why}`);
    expect(refused?.message).toContain('expected file:///absolute/path, a directory path, or s3://bucket/prefix');
  });
});
