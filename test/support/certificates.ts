import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Files (paths) of a test PKI, made by the `openssl` CLI into a temporary directory. */
export interface TestCertificates {
  dir: string;
  /** The CA that signs the server certificate. */
  ca: string;
  /** Another CA, which signed nothing here: a client trusting only it must refuse the server. */
  wrongCa: string;
  /** A server certificate from `ca` for 127.0.0.1, localhost and the names given, and its key (mode 0600). */
  cert: string;
  key: string;
  /** Another certificate from `ca` for loopback, with its own key: the first one renewed (valid a day longer). */
  renewedCert: string;
  renewedKey: string;
  /** A key that is not the certificate's. */
  otherKey: string;
  /** The server key, encrypted with a passphrase. */
  encryptedKey: string;
  /** Signed by `ca` with the server key, valid for a day that has passed. */
  expiredCert: string;
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
const newKey = (dir: string, file: string) => {
  openssl(dir, ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file]);
  return join(dir, file);
};
const newCa = (dir: string, name: string) => {
  newKey(dir, `${name}.key`);
  openssl(dir, ['req', '-x509', '-new', '-key', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=Fleetplane test ${name}`]);
  return join(dir, `${name}.crt`);
};

/** A CA, a wrong CA, and a server certificate for loopback and `names` from the first (TestCertificates). */
export function makeCertificates(names: string[] = []): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'fleetplane-tls-'));
  const ca = newCa(dir, 'ca');
  const wrongCa = newCa(dir, 'wrong-ca');
  const otherKey = newKey(dir, 'other.key');
  const altNames = ['IP:127.0.0.1', 'DNS:localhost', ...names.map((n) => `DNS:${n}`)].join(',');
  writeFileSync(join(dir, 'server.ext'), `subjectAltName=${altNames}\nextendedKeyUsage=serverAuth\n`);
  const [cert, key] = newServer(dir, 'server');
  const [renewedCert, renewedKey] = newServer(dir, 'renewed', 3);
  openssl(dir, ['pkey', '-in', 'server.key', '-aes256', '-passout', 'pass:fleetplane', '-out', 'encrypted.key']);
  // The CLI's -not_before/-not_after come with OpenSSL 3.4; a certificate valid on one day long ago does the same.
  openssl(dir, ['ca', '-batch', '-selfsign', '-keyfile', 'server.key', '-in', 'server.csr', '-startdate', '20200101000000Z', '-enddate', '20200102000000Z', '-out', 'expired.crt', '-config', writeCaConfig(dir)]);
  return { dir, ca, wrongCa, cert, key, renewedCert, renewedKey, otherKey, encryptedKey: join(dir, 'encrypted.key'), expiredCert: join(dir, 'expired.crt') };
}

/** A key and a certificate from `ca` for 127.0.0.1 and localhost, valid `days`: NAME.crt, NAME.key. */
function newServer(dir: string, name: string, days = 2): [string, string] {
  const key = newKey(dir, `${name}.key`);
  openssl(dir, ['req', '-new', '-key', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=localhost']);
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', String(days), '-extfile', 'server.ext', '-out', `${name}.crt`]);
  return [join(dir, `${name}.crt`), key];
}

/** A minimal `openssl ca` configuration (its database in `dir`), for the expired certificate alone. */
function writeCaConfig(dir: string): string {
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '01\n');
  const file = join(dir, 'ca.cnf');
  writeFileSync(
    file,
    `[ca]\ndefault_ca = test\n[test]\ndatabase = ${dir}/index.txt\nserial = ${dir}/serial\nnew_certs_dir = ${dir}\ndefault_md = sha256\npolicy = any\n[any]\ncommonName = supplied\n`,
  );
  return file;
}
