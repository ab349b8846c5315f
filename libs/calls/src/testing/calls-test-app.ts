import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { crmManifest, crmMigrations } from '@engage/crm';
import { DataApiModule } from '@engage/data-api';
import { identityManifest, identityMigrations, OrganizationService } from '@engage/identity';
import { OutboundClient } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { callsManifest, callsMigrations, CallsModule, CALLS_OUTBOUND } from '../index';

// Test DNS: names under .internal.test resolve to private addresses, localhost to loopback, the
// rest to a public address (as the system resolver would answer for real hosts).
export const TEST_DNS: Record<string, { address: string; family: number }[]> = {
  localhost: [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ],
  'db.internal.test': [{ address: '10.0.0.12', family: 4 }],
  'metadata.internal.test': [{ address: '169.254.169.254', family: 4 }],
  'v6.internal.test': [{ address: 'fd00::7', family: 6 }],
  'mixed.internal.test': [
    { address: '93.184.215.14', family: 4 },
    { address: '192.168.1.5', family: 4 },
  ],
};
const resolve = async (host: string) => TEST_DNS[host] ?? [{ address: '93.184.215.14', family: 4 }];

// The api with identity, the CRM, the calls context (its address checks on the test DNS) and the
// data API over their tables; the object storage is the local stand-in under DATA_DIR/cdn unless
// `env` points it at an S3-compatible server.
export async function startCallsApp(env: Record<string, string> = {}) {
  const outbound = new OutboundClient({ resolve, keepAlive: false });
  const calls = { module: CallsModule, providers: [{ provide: CALLS_OUTBOUND, useValue: outbound }] };
  const started = await startTestApp([calls, DataApiModule.forRoot([...identityManifest.tables, ...crmManifest.tables, ...callsManifest.tables])], {
    migrations: [...identityMigrations, ...crmMigrations, ...callsMigrations],
    env,
    events: [...identityManifest.publishes, ...crmManifest.publishes, ...callsManifest.publishes],
  });
  return { ...started, cdnDir: join(started.runtime.config.DATA_DIR, 'cdn') };
}

export type CallsApp = Awaited<ReturnType<typeof startCallsApp>>;

export const setSuiteId = (app: CallsApp, organizationId: string, suiteId: string) =>
  app.app.get(OrganizationService).setSetting(organizationId, 'suite_id', suiteId);

// Every file under the CDN stand-in, as keys.
export function storedKeys(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => relative(dir, join(e.parentPath, e.name)));
  } catch {
    return [];
  }
}

export interface FilePart {
  field?: string;
  filename?: string;
  contentType?: string;
  bytes: Buffer;
}

// A multipart/form-data body as a client sends it: the text fields, then the files.
export function multipart(fields: Record<string, string>, files: FilePart[] = []): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----engage${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const file of files) {
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.filename ?? 'call.mp3'}"\r\n`;
    parts.push(Buffer.from(`${head}Content-Type: ${file.contentType ?? 'audio/mpeg'}\r\n\r\n`), file.bytes, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

// The first bytes of a file of each accepted format (then anything: the format is in the header).
export const AUDIO_HEADERS: Record<string, Buffer> = {
  mp3: Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'),
  mp3_frame: Buffer.from([0xff, 0xfb, 0x90, 0x64, 0x00, 0x00]),
  m4a: Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypM4A \x00\x00\x00\x00M4A mp42isom', 'latin1')]),
  wav: Buffer.from('RIFF\x24\x08\x00\x00WAVEfmt \x10\x00\x00\x00', 'latin1'),
  ogg: Buffer.from('OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00', 'latin1'),
  webm: Buffer.concat([
    Buffer.from([
      0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01, 0x42, 0xf2, 0x81, 0x04, 0x42, 0xf3, 0x81, 0x08, 0x42, 0x82, 0x84,
    ]),
    Buffer.from('webm'),
  ]),
  aac: Buffer.from([0xff, 0xf1, 0x50, 0x80, 0x2e, 0x7f, 0xfc]),
  '3gp': Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftyp3gp4\x00\x00\x02\x003gp4isom', 'latin1')]),
  amr: Buffer.from('#!AMR\n\x3c\x91\x17\x16', 'latin1'),
};

// A recording of `size` bytes: a real MP3 header, then noise.
export function mp3Of(size: number): Buffer {
  const bytes = randomBytes(size);
  AUDIO_HEADERS.mp3.copy(bytes, 0);
  return bytes;
}
