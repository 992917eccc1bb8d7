import { join } from 'node:path';
import S3rver from 's3rver';

/** The bucket every test S3 server has. */
export const TEST_BUCKET = 'fleet-archive';

/**
 * An S3-compatible server (s3rver) in the test's own process, on a free port, keeping its objects under a
 * directory of the test's, with one bucket; the AWS SDK is pointed at it through the environment only, as an
 * operator would point it at one. It can be stopped and started again on the same port and objects (an
 * archive that goes away and comes back).
 */
export class TestS3Server {
  readonly directory: string;
  port = 0;
  private server: S3rver | null = null;
  private readonly savedEnv = { ...process.env };

  private constructor(directory: string) {
    this.directory = directory;
  }

  /** Starts a server keeping its objects and the SDK's (absent) config files under `directory`. */
  static async start(directory: string): Promise<TestS3Server> {
    const s3 = new TestS3Server(directory);
    await s3.resume();
    s3.useEndpoint();
    return s3;
  }

  /** `s3://<bucket>/<prefix>`. */
  url(prefix: string): string {
    return `s3://${TEST_BUCKET}/${prefix}`;
  }

  /** The AWS SDK configured for the server at `port` (by default this one) through `variable`: environment only, one attempt per request. */
  useEndpoint(variable: 'AWS_ENDPOINT_URL_S3' | 'AWS_ENDPOINT_URL' = 'AWS_ENDPOINT_URL_S3', port = this.port): void {
    delete process.env.AWS_ENDPOINT_URL;
    delete process.env.AWS_ENDPOINT_URL_S3;
    Object.assign(process.env, {
      [variable]: `http://127.0.0.1:${port}`,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_CONFIG_FILE: join(this.directory, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(this.directory, 'no-aws-credentials'),
      AWS_MAX_ATTEMPTS: '1',
    });
  }

  /** The server stops answering: connections to its port are refused. */
  async pause(): Promise<void> {
    await this.server?.close();
    this.server = null;
  }

  /** The server answers again, on the same port, with the objects it held. */
  async resume(): Promise<void> {
    this.server = new S3rver({ address: '127.0.0.1', port: this.port, silent: true, directory: join(this.directory, 's3'), configureBuckets: [{ name: TEST_BUCKET, configs: [] }] });
    this.port = (await this.server.run()).port;
  }

  /** Stops the server and gives the environment back as it was. */
  async close(): Promise<void> {
    await this.pause();
    process.env = this.savedEnv;
  }
}
