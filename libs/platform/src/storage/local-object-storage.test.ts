import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { LocalObjectStorage } from './local-object-storage';

describe('the local stand-in for the CDN', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engage-objects-'));
  const storage = new LocalObjectStorage(dir, 'http://cdn.local/');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should stream a body under its key and say where it is served', async () => {
    async function* chunks() {
      for (let i = 0; i < 64; i++) yield Buffer.alloc(16_384, i);
    }
    const stored = await storage.put('suite-1/2026/11/rec.mp3', Readable.from(chunks()), { contentType: 'audio/mpeg' });
    expect(stored).toEqual({ key: 'suite-1/2026/11/rec.mp3', url: 'http://cdn.local/suite-1/2026/11/rec.mp3', bytes: 64 * 16_384 });
    expect(readFileSync(join(dir, 'suite-1/2026/11/rec.mp3')).subarray(16_384, 16_385)[0]).toBe(1);
    await storage.remove('suite-1/2026/11/rec.mp3');
    await storage.remove('suite-1/2026/11/rec.mp3');
    expect(readdirSync(join(dir, 'suite-1/2026/11'))).toEqual([]);
  });

  it('should leave nothing behind when the body fails mid-way', async () => {
    async function* failing() {
      yield Buffer.alloc(1000);
      throw new Error('client went away');
    }
    await expect(storage.put('suite-1/broken.mp3', Readable.from(failing()), { contentType: 'audio/mpeg' })).rejects.toThrow('client went away');
    expect(readdirSync(join(dir, 'suite-1'))).not.toContain('broken.mp3');
    expect(readdirSync(join(dir, 'suite-1')).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });

  it('should open a stored object to be read, and nothing for missing, folder or invalid keys', async () => {
    await storage.put('media/org-1/a.png', Buffer.from('png bytes'), { contentType: 'image/png' });
    const file = await storage.read('media/org-1/a.png');
    expect(file?.bytes).toBe(9);
    expect((await buffer(file!.body)).toString()).toBe('png bytes');
    for (const key of ['media/org-1/b.png', 'media/org-1', '../escape', 'media//a.png']) expect(await storage.read(key)).toBeUndefined();
  });

  it('should refuse keys that leave its directory or are not plain segments', async () => {
    for (const key of ['../escape.mp3', 'a/../../b', '/abs', 'a//b', '.hidden/x', 'a\\b', '']) {
      await expect(storage.put(key, Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow(/invalid object key/);
    }
  });
});
