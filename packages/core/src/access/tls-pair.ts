import { createPrivateKey, X509Certificate } from 'node:crypto';

/**
 * Why a certificate and private key (PEM, as read from their files) cannot serve TLS at `now`, or null when
 * they can: the certificate (the first of a chain) is not a certificate, has expired or is not yet valid, the
 * key is not a private key, or the key is not the certificate's. The Hub's listener and the agent's control
 * endpoint both refuse such a pair before they serve. The reasons never quote the key.
 */
export function tlsPairFault(certPem: string, keyPem: string, now: Date): string | null {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (e) {
    return `the certificate is not a PEM certificate (${(e as Error).message})`;
  }
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    // PKCS#8 (`BEGIN ENCRYPTED PRIVATE KEY`) and the older `Proc-Type: 4,ENCRYPTED` header both say it.
    return /^-----BEGIN ENCRYPTED PRIVATE KEY-----$|^Proc-Type: 4,ENCRYPTED$/m.test(keyPem)
      ? 'the private key is encrypted: give it unencrypted, readable by this user alone'
      : 'the key is not a PEM private key';
  }
  if (!cert.checkPrivateKey(key)) return `the private key does not match the certificate (${cert.subject.replaceAll('\n', ', ')})`;
  if (cert.validToDate.getTime() < now.getTime()) return `the certificate expired at ${cert.validToDate.toISOString()}`;
  if (cert.validFromDate.getTime() > now.getTime()) return `the certificate is not valid before ${cert.validFromDate.toISOString()}`;
  return null;
}

/**
 * Why `pem` (a CA file's text) cannot be trusted to verify a peer, or null when it can. A self-signed server
 * certificate is taken as well as a CA's: trusting it pins that one server.
 */
export function caFault(pem: string): string | null {
  try {
    new X509Certificate(pem);
    return null;
  } catch (e) {
    return `not a PEM certificate (${(e as Error).message})`;
  }
}
