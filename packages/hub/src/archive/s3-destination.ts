import { createHash } from 'node:crypto';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { proxiedAgents } from '../egress.ts';
import { attempt, checkObjectName, checkPrefix, type Destination, type StoredObject } from './destination.ts';

export interface BucketLocation {
  bucket: string;
  /** Empty, or ends with `/`. */
  prefix: string;
}

/**
 * Objects in an S3 bucket under a key prefix, through the AWS SDK v3 configured the standard way: credentials
 * and region from the environment, shared config files or the instance role; an S3-compatible server through
 * AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, and then path-style addressing (`http://host/bucket/key`), which
 * such servers serve without a DNS name per bucket. A PutObject is atomic; it carries the object's SHA-256,
 * which S3 checks on arrival and keeps as the object's checksum. Calls go through the egress proxy `env` names
 * (HTTPS_PROXY, HTTP_PROXY, NO_PROXY; egress.ts).
 */
export class S3Destination implements Destination {
  readonly url: string;
  private readonly location: BucketLocation;
  private readonly client: S3Client;

  constructor(location: BucketLocation, env: NodeJS.ProcessEnv = process.env) {
    this.location = location;
    this.url = `s3://${location.bucket}/${location.prefix}`;
    this.client = new S3Client({ forcePathStyle: Boolean(env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL), requestHandler: proxiedAgents(env) });
  }

  async put(name: string, bytes: Uint8Array): Promise<void> {
    const Key = this.key(name);
    const ChecksumSHA256 = createHash('sha256').update(bytes).digest('base64');
    return attempt(this.url, `write ${name}`, async () => {
      await this.client.send(new PutObjectCommand({ Bucket: this.location.bucket, Key, Body: bytes, ContentLength: bytes.length, ChecksumSHA256 }));
    });
  }

  async get(name: string): Promise<Buffer | undefined> {
    const Key = this.key(name);
    return attempt(this.url, `read ${name}`, async () => {
      try {
        const out = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key }));
        return Buffer.from(await out.Body!.transformToByteArray());
      } catch (e) {
        return absentAsUndefined(e);
      }
    });
  }

  async getStart(name: string, bytes: number): Promise<Buffer | undefined> {
    const Key = this.key(name);
    return attempt(this.url, `read ${name}`, async () => {
      try {
        const out = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key, Range: `bytes=0-${bytes - 1}` }));
        // A server that ignores the range sends the whole object.
        return Buffer.from(await out.Body!.transformToByteArray()).subarray(0, bytes);
      } catch (e) {
        return absentAsUndefined(e);
      }
    });
  }

  async head(name: string): Promise<StoredObject | undefined> {
    const Key = this.key(name);
    return attempt(this.url, `look up ${name}`, async () => {
      try {
        const out = await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key }));
        return { name, size: out.ContentLength ?? 0 };
      } catch (e) {
        return absentAsUndefined(e);
      }
    });
  }

  async list(prefix: string): Promise<StoredObject[]> {
    const Prefix = this.location.prefix + checkPrefix(prefix);
    return attempt(this.url, `list ${prefix || 'objects'}`, async () => {
      const found: StoredObject[] = [];
      for await (const page of paginateListObjectsV2({ client: this.client }, { Bucket: this.location.bucket, Prefix })) {
        for (const o of page.Contents ?? []) found.push({ name: o.Key!.slice(this.location.prefix.length), size: o.Size ?? 0 });
      }
      return found;
    });
  }

  async delete(name: string): Promise<void> {
    const Key = this.key(name);
    return attempt(this.url, `delete ${name}`, async () => {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key }));
    });
  }

  private key(name: string): string {
    return this.location.prefix + checkObjectName(name);
  }
}

function absentAsUndefined(e: unknown): undefined {
  if ((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404 && (e as Error).name !== 'NoSuchBucket') return undefined;
  throw e;
}
