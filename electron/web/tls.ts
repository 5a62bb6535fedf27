import { createHash, createPrivateKey, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { chmod, mkdir, readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { Logger } from '../core/log.ts';
import { writeFileAtomic } from '../core/atomic-file.ts';
import { systemClock, type Clock } from '../shared/clock.ts';

/**
 * The browser shell's TLS identity (issue 9, transport): off loopback it serves HTTPS/WSS
 * only, with the merchant's own certificate or one generated at the first start and kept
 * in the data dir. Its SHA-256 fingerprint is what the Electron till pins, and what a person
 * compares in a browser's certificate viewer, so a kept certificate is reused, never silently
 * replaced.
 *
 * Issue 25, point 5: a generated certificate is issued by the store's own certificate
 * authority, made once per data dir. A tablet that installs that CA's certificate (from the
 * download page, STORE_CA_PATH) trusts the shell with no warning and no exception, as a
 * browser cannot be made to pin. The CA's key is a secret kept beside the shell's key, owner
 * only, and never served; its certificate is public.
 */
export interface TlsIdentity {
  /** PEM; a given file may carry its chain after the certificate. */
  cert: string;
  key: string;
  /** SHA-256 of the certificate's DER, "AB:CD:…" upper-case hex. */
  fingerprint: string;
  /** The store CA's certificate (PEM) that issued `cert`; null for the merchant's own certificate or a kept self-signed one. */
  ca: string | null;
  /** True when this call made a new certificate. */
  generated: boolean;
}

export interface TlsIdentityOptions {
  dataDir: string;
  /** POS_TLS_CERT / POS_TLS_KEY: both or neither. */
  certFile?: string;
  keyFile?: string;
  /** Addresses and names the generated certificate must cover (subjectAltName). */
  hosts: string[];
  /** Real time: TLS clients check a certificate's dates against their own clocks, not the sandbox's. */
  clock?: Clock;
  log?: Logger;
}

export class TlsIdentityError extends Error {
  override name = 'TlsIdentityError';
}

const DAY_MS = 86_400_000;
/** Two years: under the 825 days Apple devices accept for a certificate a person trusted. */
const VALID_DAYS = 730;
/** A till whose clock runs a little behind must not see the certificate as not yet valid. */
const BACKDATE_MS = DAY_MS;

/** The store CA outlives many shell certificates: a tablet installs it once. */
const CA_VALID_DAYS = 3650;

export const TLS_DIR = 'tls';
export const CERT_FILE = 'cert.pem';
export const KEY_FILE = 'key.pem';
export const CA_CERT_FILE = 'store-ca.pem';
export const CA_KEY_FILE = 'store-ca-key.pem';
/** Where the shell serves the store CA's certificate for tablets to install (the Devices screen's QR). */
export const STORE_CA_PATH = '/store-ca.crt';

/** SHA-256 of a PEM certificate's DER, "AB:CD:…": what a manager compares and a till pins. */
export function certificateFingerprint(certPem: string): string {
  return new X509Certificate(certPem).fingerprint256;
}

/**
 * The certificate's public key as Chromium pins it (--ignore-certificate-errors-spki-list):
 * base64 of the SHA-256 of its SubjectPublicKeyInfo.
 */
export function spkiPin(certPem: string): string {
  const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

export async function loadTlsIdentity(opts: TlsIdentityOptions): Promise<TlsIdentity> {
  const clock = opts.clock ?? systemClock;
  if ((opts.certFile === undefined) !== (opts.keyFile === undefined)) {
    throw new TlsIdentityError('Give both POS_TLS_CERT and POS_TLS_KEY (the certificate and its private key), or neither to use a generated certificate.');
  }
  if (opts.certFile !== undefined && opts.keyFile !== undefined) return givenIdentity(opts.certFile, opts.keyFile, opts, clock);

  const dir = join(opts.dataDir, TLS_DIR);
  const certPath = join(dir, CERT_FILE);
  const keyPath = join(dir, KEY_FILE);
  const caCertPath = join(dir, CA_CERT_FILE);
  const caKeyPath = join(dir, CA_KEY_FILE);
  const [kept, keptCa] = await Promise.all([keptIdentity(certPath, keyPath, clock), keptIdentity(caCertPath, caKeyPath, clock)]);
  const ca = keptCa.ok && keptCa.x509.ca ? keptCa : null;
  if (kept.ok) {
    // A certificate made before the store CA (or after its CA was lost) is kept all the same:
    // a new one would change the fingerprint every paired Electron till pinned.
    const issuedByCa = ca !== null && kept.x509.checkIssued(ca.x509) && kept.x509.verify(ca.x509.publicKey);
    if (!issuedByCa) opts.log?.warn('the kept browser shell certificate was not issued by a store certificate authority; delete the tls folder of the data dir to make one (tablets then connect with no warning; paired Electron tills must be paired again)', { dir });
    const missing = uncovered(kept.x509, opts.hosts);
    if (missing.length > 0) {
      // Replacing it would change the fingerprint every paired till pinned: say so, let a person decide.
      opts.log?.warn('the kept browser shell certificate does not cover every address it is served on; delete the tls folder of the data dir to make a new one (paired tills must then be paired again)', { missing, dir });
    }
    return { cert: kept.cert, key: kept.key, fingerprint: kept.x509.fingerprint256, ca: issuedByCa ? ca.cert : null, generated: false };
  }
  if (kept.reason !== 'missing') opts.log?.warn('making a new browser shell certificate', { reason: kept.reason, dir });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir keeps the mode of a folder that already exists.
  await chmod(dir, 0o700);
  let authority: { cert: string; key: string };
  if (ca !== null) {
    // Made once: a new shell certificate from the same CA needs nothing new on the tablets.
    authority = { cert: ca.cert, key: ca.key };
  } else {
    if (!keptCa.ok && keptCa.reason !== 'missing') opts.log?.warn('making a new store certificate authority; tablets must install its certificate again', { reason: keptCa.reason, dir });
    authority = await generateAuthority(clock);
    await writeFileAtomic(caKeyPath, authority.key, 0o600);
    await writeFileAtomic(caCertPath, authority.cert, 0o644);
    opts.log?.info('made a store certificate authority', { dir, fingerprint: certificateFingerprint(authority.cert) });
  }
  const made = await generateIdentity(opts.hosts, clock, authority);
  await writeFileAtomic(keyPath, made.key, 0o600);
  await writeFileAtomic(certPath, made.cert, 0o644);
  opts.log?.info('made a browser shell certificate', { dir, fingerprint: made.fingerprint, hosts: opts.hosts });
  return { ...made, ca: authority.cert, generated: true };
}

async function givenIdentity(certFile: string, keyFile: string, opts: TlsIdentityOptions, clock: Clock): Promise<TlsIdentity> {
  const cert = await readText(certFile, 'POS_TLS_CERT');
  const key = await readText(keyFile, 'POS_TLS_KEY');
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new TlsIdentityError(`POS_TLS_CERT (${certFile}) is not a PEM certificate ("-----BEGIN CERTIFICATE-----").`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new TlsIdentityError(`POS_TLS_KEY (${keyFile}) is not an unencrypted PEM private key ("-----BEGIN PRIVATE KEY-----").`);
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw new TlsIdentityError(`POS_TLS_KEY (${keyFile}) is not the private key of the certificate in POS_TLS_CERT (${certFile}): give the key the certificate was issued for.`);
  }
  const now = clock.now();
  if (x509.validToDate.getTime() <= now) {
    throw new TlsIdentityError(`The certificate in POS_TLS_CERT (${certFile}) expired on ${x509.validToDate.toISOString()}: renew it, or remove POS_TLS_CERT and POS_TLS_KEY to use a generated one.`);
  }
  const missing = uncovered(x509, opts.hosts);
  if (missing.length > 0) opts.log?.warn('the certificate in POS_TLS_CERT does not cover every address the browser shell is served on: browsers will refuse those addresses', { missing });
  return { cert, key, fingerprint: x509.fingerprint256, ca: null, generated: false };
}

async function readText(path: string, name: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TlsIdentityError(
      code === 'ENOENT' ? `${name} names ${path}, which does not exist.` : `${name} names ${path}, which cannot be read (${code ?? (err as Error).message}).`,
    );
  }
}

type Kept = { ok: true; cert: string; key: string; x509: X509Certificate } | { ok: false; reason: string };

async function keptIdentity(certPath: string, keyPath: string, clock: Clock): Promise<Kept> {
  let cert: string;
  let key: string;
  try {
    [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENOENT' ? 'missing' : `unreadable (${code ?? (err as Error).message})` };
  }
  try {
    const x509 = new X509Certificate(cert);
    if (!x509.checkPrivateKey(createPrivateKey(key))) return { ok: false, reason: 'the key is not the certificate’s' };
    if (x509.validToDate.getTime() <= clock.now()) return { ok: false, reason: `expired on ${x509.validToDate.toISOString()}` };
    return { ok: true, cert, key, x509 };
  } catch {
    return { ok: false, reason: 'unreadable (not a PEM certificate and key)' };
  }
}

/** The hosts a certificate's subjectAltName does not name. */
function uncovered(x509: X509Certificate, hosts: readonly string[]): string[] {
  return hosts.filter((h) => (isIP(h) === 0 ? x509.checkHost(h, { wildcards: false }) === undefined : x509.checkIP(h) === undefined));
}

/**
 * The store's certificate authority: may issue server certificates (keyCertSign) and no
 * further CA (pathLenConstraint 0). Name constraints limiting it to the store's addresses
 * would narrow a stolen CA key further, but `selfsigned` writes only basicConstraints,
 * keyUsage, extKeyUsage and subjectAltName (it skips any other extension), and the CA must
 * outlive a DHCP lease's addresses anyway; its key is kept owner-only instead.
 */
async function generateAuthority(clock: Clock): Promise<{ cert: string; key: string }> {
  const notBefore = clock.now() - BACKDATE_MS;
  const { generate } = await import('selfsigned');
  // Each store's CA has a name of its own: a tablet's list of installed certificates tells
  // them apart, and TLS clients look an issuer up by name.
  const pems = await generate([{ name: 'commonName', value: `Pix cashier store CA ${randomBytes(4).toString('hex').toUpperCase()}` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(notBefore),
    notAfterDate: new Date(notBefore + BACKDATE_MS + CA_VALID_DAYS * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

async function generateIdentity(hosts: readonly string[], clock: Clock, ca: { cert: string; key: string }): Promise<Omit<TlsIdentity, 'generated' | 'ca'>> {
  if (hosts.length === 0) throw new TlsIdentityError('A certificate needs at least one address or name to cover.');
  const notBefore = clock.now() - BACKDATE_MS;
  // A certificate valid after its issuer expires would be refused from that day: it ends with the CA at the latest.
  const notAfter = Math.min(notBefore + BACKDATE_MS + VALID_DAYS * DAY_MS, new X509Certificate(ca.cert).validToDate.getTime());
  // Loaded only to make a certificate (once per data dir): it brings a whole X.509 stack the shell never needs otherwise.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'Pix cashier' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(notBefore),
    notAfterDate: new Date(notAfter),
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: hosts.map((h) => (isIP(h) === 0 ? { type: 2 as const, value: h } : { type: 7 as const, ip: h })) },
    ],
  });
  return { cert: pems.cert, key: pems.private, fingerprint: certificateFingerprint(pems.cert) };
}

