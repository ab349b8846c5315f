import type { DeleteObjectCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Upload } from '@aws-sdk/lib-storage';
import { pipeline, Readable, Transform } from 'node:stream';
import type { S3Target } from './cdn-target';
import { assertObjectKey, type ObjectBody, type ObjectStorage, type PutOptions, type StoredObject } from './object-storage';

// S3's smallest part. A body is read in parts of this size, one uploading at a time, so an upload
// holds about 10-15 MiB whatever its length; two at a time cost a third more memory for no speed
// (docs/operations.md, Object storage).
const PART_BYTES = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 1;

// The configured CDN: any S3-compatible server, through the AWS SDK (signing, retries with back-off,
// multipart uploads). A body up to one part is one PutObject; a longer one, or one of unknown length,
// a multipart upload that is aborted on failure so no parts are left behind.
export class S3ObjectStorage implements ObjectStorage {
  readonly kind = 's3' as const;
  private sdk?: Promise<{
    client: S3Client;
    Upload: typeof Upload;
    DeleteObjectCommand: typeof DeleteObjectCommand;
    GetObjectCommand: typeof GetObjectCommand;
  }>;

  constructor(private readonly target: S3Target) {}

  // The SDK is loaded at the first use (it adds about 35 MB and a quarter second to a process).
  private loadSdk() {
    this.sdk ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(([s3, storage]) => ({
      client: new s3.S3Client({
        endpoint: this.target.endpoint,
        region: this.target.region,
        forcePathStyle: true,
        credentials: { accessKeyId: this.target.accessKeyId, secretAccessKey: this.target.secretAccessKey },
        // The SDK's default checksums (CRC32 in trailers of aws-chunked bodies) are not understood by
        // many S3-compatible servers; the signed SHA-256 of each request's payload is kept.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        maxAttempts: 3,
        requestHandler: { connectionTimeout: this.target.timeoutMs, requestTimeout: this.target.timeoutMs, throwOnRequestTimeout: true },
      }),
      Upload: storage.Upload,
      DeleteObjectCommand: s3.DeleteObjectCommand,
      GetObjectCommand: s3.GetObjectCommand,
    }));
    return this.sdk;
  }

  async put(key: string, body: Readable | Buffer, options: PutOptions): Promise<StoredObject> {
    assertObjectKey(key);
    const aborted = () => Object.assign(new Error(`upload of "${key}" aborted`), { name: 'AbortError' });
    if (options.signal?.aborted) throw aborted();
    let bytes = Buffer.isBuffer(body) ? body.length : 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    // pipeline() passes a failure of the body (a client that went away) on to the upload.
    const counted = Buffer.isBuffer(body) ? body : pipeline(body, counter, () => undefined);
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const { client, Upload } = await this.loadSdk();
    const upload = new Upload({
      client,
      params: { Bucket: this.target.bucket, Key: key, Body: counted, ContentType: options.contentType },
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
      abortController: controller,
    });
    try {
      await upload.done();
    } catch (error) {
      // Stop reading the body (its sender is answered with the error), then say why.
      const bodyError = Buffer.isBuffer(body) ? undefined : body.errored;
      if (!Buffer.isBuffer(body)) body.destroy();
      if (options.signal?.aborted) throw aborted();
      if (bodyError) throw bodyError;
      throw new Error(`object storage could not store "${key}": ${this.describe(error)}`);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
    return { key, url: `${this.target.publicUrl}/${key}`, bytes };
  }

  async remove(key: string): Promise<void> {
    assertObjectKey(key);
    try {
      const { client, DeleteObjectCommand } = await this.loadSdk();
      await client.send(new DeleteObjectCommand({ Bucket: this.target.bucket, Key: key }));
    } catch (error) {
      throw new Error(`object storage could not remove "${key}": ${this.describe(error)}`);
    }
  }

  // Streams an object from the bucket (the worker reading a call recording back): undefined when
  // there is none or the key is not valid.
  async read(key: string): Promise<ObjectBody | undefined> {
    try {
      assertObjectKey(key);
    } catch {
      return undefined;
    }
    try {
      const { client, GetObjectCommand } = await this.loadSdk();
      const answer = await client.send(new GetObjectCommand({ Bucket: this.target.bucket, Key: key }));
      if (!(answer.Body instanceof Readable)) throw new Error('the answer has no body stream');
      return { body: answer.Body, bytes: answer.ContentLength ?? 0 };
    } catch (error) {
      const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return undefined;
      throw new Error(`object storage could not read "${key}": ${this.describe(error)}`);
    }
  }

  // Nest closes the client's connections when the application closes.
  async onModuleDestroy(): Promise<void> {
    (await this.sdk)?.client.destroy();
  }

  // The server's code, status and message only (never the SDK's error itself, whose fields echo
  // the request), with the keys blanked should a server quote them.
  private describe(error: unknown): string {
    const e = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
    const status = e.$metadata?.httpStatusCode;
    let text = `${e.name ?? 'Error'}${status ? ` (HTTP ${status})` : ''}: ${e.message ?? String(error)}`;
    for (const secret of [this.target.secretAccessKey, this.target.accessKeyId]) text = text.split(secret).join('[redacted]');
    return text.slice(0, 300);
  }
}
