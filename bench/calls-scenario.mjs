// Call recordings scenario of `npm run bench`: ten 50 MB recordings uploaded at once to
// POST /functions/v1/mobile-api/call-recording (multipart, streamed to the object storage), the
// throughput and the api's peak resident memory (streaming keeps it far below the 500 MB sent).
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { sampleResident } from './crm-scenarios.mjs';

export const CALL_UPLOADS = 'call recording uploads, 10 x 50 MB';
const UPLOADS = 10;
const FILE_BYTES = 50_000_000;
const CHUNK = 256 * 1024;

// The organization's suite id names its folder on the CDN; uploads need it.
export async function seedSuiteId(databaseUrl, organizationId) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`UPDATE organizations SET settings = jsonb_set(settings, '{suite_id}', '"bench-suite"') WHERE id = $1`, [organizationId]);
  } finally {
    await client.end();
  }
}

// One upload over its own connection: the multipart head, the file (an MP3 header, then the same
// random chunk over and over, written as the socket drains), the tail.
function upload(base, accessToken) {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="direction"\r\n\r\noutbound\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="call.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = randomBytes(CHUNK);
  Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1').copy(chunk, 0);
  return new Promise((resolve, reject) => {
    const req = request(`${base}/functions/v1/mobile-api/call-recording`, {
      method: 'POST',
      agent: false,
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + FILE_BYTES + tail.length,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.on('data', (data) => (text += data));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`upload answered ${res.statusCode}: ${text}`))));
    });
    let written = 0;
    const pump = () => {
      while (written < FILE_BYTES) {
        const piece = chunk.subarray(0, Math.min(CHUNK, FILE_BYTES - written));
        written += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    req.write(head);
    pump();
  });
}

export async function measureCallUploads(base, state, serverPid) {
  const memory = sampleResident(serverPid);
  const started = process.hrtime.bigint();
  try {
    const answers = await Promise.all(Array.from({ length: UPLOADS }, () => upload(base, state.accessToken)));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const stored = answers.filter((answer) => answer.recording_stored).length;
    return {
      scenario: CALL_UPLOADS,
      uploads: UPLOADS,
      stored,
      file_bytes: FILE_BYTES,
      seconds: Number(seconds.toFixed(2)),
      megabytes_per_second: Number(((UPLOADS * FILE_BYTES) / 1e6 / seconds).toFixed(1)),
      server_rss_before_mib: memory.before,
      server_rss_peak_mib: memory.stop(),
    };
  } finally {
    memory.stop();
  }
}
