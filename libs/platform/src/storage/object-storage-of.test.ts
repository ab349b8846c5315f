import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../config/load-config';
import { ConfigError } from '../config/setting';
import { LocalObjectStorage } from './local-object-storage';
import { objectStorageOf } from './object-storage-of';
import { S3ObjectStorage } from './s3-object-storage';

const keys = { CDN_ACCESS_KEY_ID: 'AKIDEXAMPLE', CDN_SECRET_ACCESS_KEY: 'secret-example' };
const errorOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error('loaded');
};

describe('the object storage the settings choose', () => {
  it('should be the local stand-in under DATA_DIR/cdn by default, or under CDN_DIR', () => {
    const byDefault = objectStorageOf(loadConfig({ DATA_DIR: '/srv/engage-x' }));
    expect(byDefault).toBeInstanceOf(LocalObjectStorage);
    expect(byDefault.kind).toBe('local');
    const dir = objectStorageOf(loadConfig({ CDN_DIR: './cdn-here', CDN_PUBLIC_URL: 'https://files.example.com/' })) as LocalObjectStorage;
    expect((dir as unknown as { dir: string }).dir).toBe(resolve('./cdn-here'));
    expect((byDefault as unknown as { baseUrl: string }).baseUrl).toBe(pathToFileURL(resolve(join('/srv/engage-x', 'cdn'))).href);
    expect((dir as unknown as { baseUrl: string }).baseUrl).toBe('https://files.example.com');
  });

  it('should be the S3-compatible CDN when CDN_URL is set, objects addressed at CDN_PUBLIC_URL or the bucket', () => {
    const s3 = objectStorageOf(loadConfig({ CDN_URL: 'https://s3.eu-west-1.amazonaws.com/engage-cdn/', ...keys, CDN_REGION: 'eu-west-1' }));
    expect(s3).toBeInstanceOf(S3ObjectStorage);
    expect(s3.kind).toBe('s3');
    const target = (s3 as unknown as { target: Record<string, unknown> }).target;
    expect(target).toEqual({
      endpoint: 'https://s3.eu-west-1.amazonaws.com',
      bucket: 'engage-cdn',
      region: 'eu-west-1',
      timeoutMs: 60000,
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'secret-example',
      publicUrl: 'https://s3.eu-west-1.amazonaws.com/engage-cdn',
    });
    const fronted = objectStorageOf(loadConfig({ CDN_URL: 'http://127.0.0.1:9000/media', ...keys, CDN_PUBLIC_URL: 'https://cdn.example.com' }));
    expect((fronted as unknown as { target: { publicUrl: string } }).target.publicUrl).toBe('https://cdn.example.com');
  });

  it('should stop the start with one line naming the setting when CDN_URL has no bucket or lacks its keys', () => {
    const urls = ['https://s3.example.com', 'https://s3.example.com/a/b', 'https://s3.example.com/UPPER'];
    urls.push('https://s3.example.com/b?x=1', 'https://u:p@s3.example.com/b');
    for (const url of urls) {
      expect({ url, setting: errorOf({ CDN_URL: url, ...keys }).setting }).toEqual({ url, setting: 'CDN_URL' });
    }
    const withoutId = errorOf({ CDN_URL: 'https://s3.example.com/bucket', CDN_SECRET_ACCESS_KEY: 'x' });
    expect(withoutId.message).toBe('CDN_ACCESS_KEY_ID: is required when CDN_URL is set');
    expect(errorOf({ CDN_URL: 'https://s3.example.com/bucket', CDN_ACCESS_KEY_ID: 'x' }).setting).toBe('CDN_SECRET_ACCESS_KEY');
    expect(errorOf({ CDN_URL: 'ftp://s3.example.com/bucket', ...keys }).setting).toBe('CDN_URL');
    expect(errorOf({ CDN_REGION: 'EU West' }).setting).toBe('CDN_REGION');
  });
});
