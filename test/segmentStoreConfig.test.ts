import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

describe('segment store configuration', () => {
  it('keeps segments on local disk by default', () => {
    const c = loadConfig({});
    expect(c.blobStore).toBe('local');
    expect(c.s3Bucket).toBeUndefined();
    expect([c.s3Region, c.s3Prefix, c.s3ForcePathStyle, c.s3CacheDir]).toEqual(['us-east-1', '', false, undefined]);
    expect([c.s3CacheBytes, c.s3MultipartBytes]).toEqual([10 * 1024 ** 3, 64 * 1024 * 1024]);
  });

  it('reads the S3 settings', () => {
    const c = loadConfig({
      SVC_BLOB_STORE: 'S3',
      SVC_S3_BUCKET: 'obs',
      SVC_S3_ENDPOINT: 'http://127.0.0.1:9000',
      SVC_S3_PREFIX: 'sluice/prod/',
      SVC_S3_FORCE_PATH_STYLE: 'true',
      SVC_S3_CACHE_DIR: 'cache',
      SVC_S3_CACHE_BYTES: '2GiB',
      SVC_S3_MULTIPART_BYTES: '8MiB',
      AWS_REGION: 'eu-west-1',
    });
    expect(c).toMatchObject({
      blobStore: 's3',
      s3Bucket: 'obs',
      s3Endpoint: 'http://127.0.0.1:9000',
      s3Region: 'eu-west-1',
      s3Prefix: 'sluice/prod/',
      s3ForcePathStyle: true,
      s3CacheDir: path.resolve('cache'),
      s3CacheBytes: 2 * 1024 ** 3,
      s3MultipartBytes: 8 * 1024 * 1024,
    });
  });

  it('names every bad S3 setting', () => {
    expect(() => loadConfig({ SVC_BLOB_STORE: 's3' })).toThrow(/SVC_S3_BUCKET must be set/);
    expect(() => loadConfig({ SVC_BLOB_STORE: 'gcs' })).toThrow(/SVC_BLOB_STORE must be local or s3/);
    const err = (() => {
      try {
        loadConfig({ SVC_S3_ENDPOINT: 'minio:9000', SVC_S3_MULTIPART_BYTES: '1MiB', SVC_S3_FORCE_PATH_STYLE: 'maybe' });
      } catch (e) {
        return String(e);
      }
      return '';
    })();
    expect(err).toMatch(/SVC_S3_ENDPOINT must be an http or https URL/);
    expect(err).toMatch(/SVC_S3_MULTIPART_BYTES must be at least 5MiB/);
    expect(err).toMatch(/SVC_S3_FORCE_PATH_STYLE must be true or false/);
  });
});
