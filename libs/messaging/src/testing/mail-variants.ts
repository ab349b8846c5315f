import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dovecotBinary } from './mail-peers';

const SCRIPT = resolve(__dirname, '../../../../scripts/dovecot-local.sh');

// A self-signed certificate for 127.0.0.1, made for the test run (openssl comes with Dovecot's packages).
export function selfSignedCertificate(): { cert: string; key: string; certFile: string; keyFile: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'engage-tls-'));
  chmodSync(dir, 0o755);
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  chmodSync(keyFile, 0o644);
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile, keyFile, dir };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as { port: number };
  await new Promise((ok) => server.close(ok));
  return port;
}

export interface DovecotVariant {
  host: string;
  port: number;
  // The implicit-TLS port when TLS is on, else 0.
  imapsPort: number;
  // The certificate clients must trust, when TLS is on.
  tlsCa?: string;
  addUser: (user: string, password: string) => void;
  // Dovecot's log (its login lines say ", TLS," for a connection over TLS).
  log: () => string;
  stop: () => void;
}

// A second, differently configured Dovecot of this test file's own (its own directory and ports):
// without IDLE, with TLS (STARTTLS and implicit), or without a \Sent folder.
type VariantOptions = { capability?: string; tls?: { certFile: string; keyFile: string; cert: string }; sent?: 'special-use' | 'none' };

export async function startDovecotVariant(options: VariantOptions): Promise<DovecotVariant> {
  const dir = mkdtempSync(join(tmpdir(), 'engage-dovecot-variant-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const imapsPort = options.tls ? await freePort() : 0;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DOVECOT_PORT: String(port),
    DOVECOT_DIR: dir,
    DOVECOT_BIN: dovecotBinary(),
    DOVECOT_IMAPS_PORT: String(imapsPort),
    DOVECOT_SENT: options.sent ?? 'special-use',
    DOVECOT_CAPABILITY: options.capability ?? '',
    DOVECOT_TLS_CERT: options.tls?.certFile ?? '',
    DOVECOT_TLS_KEY: options.tls?.keyFile ?? '',
  };
  execFileSync(SCRIPT, ['start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return {
    host: '127.0.0.1',
    port,
    imapsPort,
    tlsCa: options.tls?.cert,
    addUser: (user, password) => writeFileSync(join(dir, 'users', user), `${user}:{PLAIN}${password}\n`),
    log: () => readFileSync(join(dir, 'dovecot.log'), 'utf8'),
    stop: () => {
      execFileSync(SCRIPT, ['stop'], { env, stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Dovecot's post-login capabilities without IDLE: a server that must be polled.
export const CAPABILITY_WITHOUT_IDLE =
  'IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE SORT THREAD=REFERENCES MULTIAPPEND UNSELECT CHILDREN NAMESPACE UIDPLUS LIST-EXTENDED ' +
  'I18NLEVEL=1 CONDSTORE ESEARCH SEARCHRES WITHIN LIST-STATUS BINARY MOVE LITERAL+ SPECIAL-USE';
