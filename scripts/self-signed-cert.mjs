// A self-signed certificate for localhost and 127.0.0.1 (openssl), for loopback HTTPS receivers of
// the bench and the fault-injection script.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function makeCert(dir) {
  const certPath = join(dir, 'receiver-cert.pem');
  const keyPath = join(dir, 'receiver-key.pem');
  const subject = ['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'];
  const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '2'];
  execFileSync('openssl', [...args, ...subject], { stdio: 'ignore' });
  return { certPath, keyPath, cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
}
