import { X509Certificate, createPrivateKey } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryLogger } from '../core/log.ts';
import { ManualClock, systemClock } from '../shared/clock.ts';
import { execFileSync } from 'node:child_process';
import { shellNames } from './addresses.ts';
import { appWindowArgs } from './open-browser.ts';
import { loadTlsIdentity, spkiPin, TlsIdentityError } from './tls.ts';

const DAY_MS = 86_400_000;
let dir = '';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pos-tls-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe('loadTlsIdentity: a generated certificate', () => {
  it('is made once, covers every host (IP and DNS), and is kept with a key only its owner can read', async () => {
    const log = memoryLogger(systemClock);
    const made = await loadTlsIdentity({ dataDir: dir, hosts: ['127.0.0.2', '192.168.1.5', 'fd00::2', 'caixa-1.local'], log });
    expect(made.generated).toBe(true);
    expect(made.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);

    const x509 = new X509Certificate(made.cert);
    expect(made.fingerprint).toBe(x509.fingerprint256);
    expect(x509.subjectAltName).toBe('IP Address:127.0.0.2, IP Address:192.168.1.5, IP Address:FD00:0:0:0:0:0:0:2, DNS:caixa-1.local');
    expect(x509.checkPrivateKey(createPrivateKey(made.key))).toBe(true);
    expect(x509.ca).toBe(false);
    const days = (x509.validToDate.getTime() - Date.now()) / DAY_MS;
    expect(days).toBeGreaterThan(700);
    expect(days).toBeLessThan(825);

    expect(await mode(join(dir, 'tls'))).toBe(0o700);
    expect(await mode(join(dir, 'tls', 'key.pem'))).toBe(0o600);
    expect(await readFile(join(dir, 'tls', 'key.pem'), 'utf8')).toBe(made.key);
    expect(await readFile(join(dir, 'tls', 'cert.pem'), 'utf8')).toBe(made.cert);
    expect(log.lines.join('\n')).toContain(made.fingerprint);
    expect(log.lines.join('\n')).not.toContain('PRIVATE KEY');
  });

  it('is reused on later starts: same certificate, same fingerprint', async () => {
    const first = await loadTlsIdentity({ dataDir: dir, hosts: ['127.0.0.2'] });
    const again = await loadTlsIdentity({ dataDir: dir, hosts: ['127.0.0.2'] });
    expect(again).toEqual({ ...first, generated: false });
  });

  it('narrows a tls folder others could read to its owner', async () => {
    await mkdir(join(dir, 'tls'), { mode: 0o755 });
    await chmod(join(dir, 'tls'), 0o755);
    await loadTlsIdentity({ dataDir: dir, hosts: ['127.0.0.2'] });
    expect(await mode(join(dir, 'tls'))).toBe(0o700);
  });

  it('keeps a certificate that does not cover a new address, and says so (a new one would unpair every till)', async () => {
    const first = await loadTlsIdentity({ dataDir: dir, hosts: ['192.168.1.5'] });
    const log = memoryLogger(systemClock);
    const later = await loadTlsIdentity({ dataDir: dir, hosts: ['192.168.1.5', '192.168.1.9'], log });
    expect(later.fingerprint).toBe(first.fingerprint);
    expect(log.lines.join('\n')).toMatch(/does not cover.*192\.168\.1\.9/);
  });

  it('is made again, with a log line saying why, when expired, unreadable or not a pair', async () => {
    const first = await loadTlsIdentity({ dataDir: dir, hosts: ['127.0.0.2'] });

    const clock = new ManualClock(Date.now() + 3 * 365 * DAY_MS);
    const log = memoryLogger(clock);
    const renewed = await loadTlsIdentity({ dataDir: dir, hosts: ['127.0.0.2'], clock, log });
    expect(renewed.generated).toBe(true);
    expect(renewed.fingerprint).not.toBe(first.fingerprint);
    expect(new X509Certificate(renewed.cert).validToDate.getTime()).toBeGreaterThan(clock.now() + 700 * DAY_MS);
    expect(log.lines.join('\n')).toMatch(/making a new browser shell certificate.*expired on/);

    await writeFile(join(dir, 'tls', 'cert.pem'), 'not a certificate');
    const log2 = memoryLogger(systemClock);
    const replaced = await loadTlsIdentity({ dataDir: dir, hosts: ['127.0.0.2'], log: log2 });
    expect(replaced.generated).toBe(true);
    expect(log2.lines.join('\n')).toContain('unreadable');

    const other = await mkdtemp(join(tmpdir(), 'pos-tls-other-'));
    try {
      const stranger = await loadTlsIdentity({ dataDir: other, hosts: ['127.0.0.2'] });
      await writeFile(join(dir, 'tls', 'key.pem'), stranger.key);
      const log3 = memoryLogger(systemClock);
      expect((await loadTlsIdentity({ dataDir: dir, hosts: ['127.0.0.2'], log: log3 })).generated).toBe(true);
      expect(log3.lines.join('\n')).toContain('the key is not the certificate');
      expect(await mode(join(dir, 'tls', 'key.pem'))).toBe(0o600);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});

describe('loadTlsIdentity: the store certificate authority (issue 25, point 5)', () => {
  it('issues the generated certificate from a CA made with it, that may issue server certificates and no other CA, its key owner-only', async () => {
    const made = await loadTlsIdentity({ dataDir: dir, hosts: shellNames('127.0.0.2') });
    expect(made.ca).toEqual(expect.any(String));
    const ca = new X509Certificate(made.ca as string);
    const leaf = new X509Certificate(made.cert);
    expect(ca.ca).toBe(true);
    expect(ca.subject).not.toBe(leaf.subject);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.subjectAltName).toBe('IP Address:127.0.0.2, DNS:localhost, IP Address:127.0.0.1');
    // pathlen 0: the store CA signs the shell's certificate, never another CA.
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: made.ca as string }).toString();
    expect(text).toMatch(/CA:TRUE, pathlen:0/);
    expect(text).toMatch(/Certificate Sign/);
    expect(leaf.validToDate.getTime()).toBeLessThanOrEqual(ca.validToDate.getTime());

    expect(await mode(join(dir, 'tls', 'store-ca-key.pem'))).toBe(0o600);
    expect(await readFile(join(dir, 'tls', 'store-ca.pem'), 'utf8')).toBe(made.ca);
    expect(ca.checkPrivateKey(createPrivateKey(await readFile(join(dir, 'tls', 'store-ca-key.pem'), 'utf8')))).toBe(true);
  });

  it('is made once: an expired shell certificate is issued again by the same CA, so tablets install nothing new', async () => {
    const first = await loadTlsIdentity({ dataDir: dir, hosts: ['127.0.0.2'] });
    expect(await loadTlsIdentity({ dataDir: dir, hosts: ['127.0.0.2'] })).toEqual({ ...first, generated: false });
    const later = await loadTlsIdentity({ dataDir: dir, hosts: ['127.0.0.2'], clock: new ManualClock(Date.now() + 3 * 365 * DAY_MS) });
    expect(later.generated).toBe(true);
    expect(later.fingerprint).not.toBe(first.fingerprint);
    expect(later.ca).toBe(first.ca);
    expect(new X509Certificate(later.cert).verify(new X509Certificate(first.ca as string).publicKey)).toBe(true);
  });

  it('keeps a certificate made before the store CA, with no CA, and says how to get one', async () => {
    // A data dir from before the store CA: a self-signed certificate the Electron tills pinned.
    const older = await loadTlsIdentity({ dataDir: dir, hosts: ['127.0.0.2'] });
    await rm(join(dir, 'tls', 'store-ca.pem'));
    await rm(join(dir, 'tls', 'store-ca-key.pem'));
    const log = memoryLogger(systemClock);
    const kept = await loadTlsIdentity({ dataDir: dir, hosts: ['127.0.0.2'], log });
    expect(kept).toEqual({ ...older, ca: null, generated: false });
    expect(log.lines.join('\n')).toMatch(/not issued by a store certificate authority; delete the tls folder/);
  });
});

describe('loadTlsIdentity: the merchant’s own certificate (POS_TLS_CERT, POS_TLS_KEY)', () => {
  async function pair(name: string) {
    const made = await loadTlsIdentity({ dataDir: join(dir, name), hosts: ['192.168.1.5'] });
    return { ...made, certFile: join(dir, name, 'tls', 'cert.pem'), keyFile: join(dir, name, 'tls', 'key.pem') };
  }

  it('is used as it is, and nothing is generated', async () => {
    const own = await pair('own');
    const used = await loadTlsIdentity({ dataDir: join(dir, 'data'), certFile: own.certFile, keyFile: own.keyFile, hosts: ['192.168.1.5'] });
    expect(used).toEqual({ cert: own.cert, key: own.key, fingerprint: own.fingerprint, ca: null, generated: false });
    await expect(stat(join(dir, 'data', 'tls'))).rejects.toThrow(/ENOENT/);
  });

  it('is refused with a sentence when the key is not the certificate’s, a file is no PEM, missing, alone or expired', async () => {
    const a = await pair('a');
    const b = await pair('b');
    const load = (certFile: string | undefined, keyFile: string | undefined, clock = systemClock) => loadTlsIdentity({ dataDir: dir, certFile, keyFile, hosts: ['192.168.1.5'], clock });

    await expect(load(a.certFile, b.keyFile)).rejects.toThrow(`POS_TLS_KEY (${b.keyFile}) is not the private key of the certificate in POS_TLS_CERT (${a.certFile}): give the key the certificate was issued for.`);
    await expect(load(a.keyFile, a.keyFile)).rejects.toThrow(`POS_TLS_CERT (${a.keyFile}) is not a PEM certificate`);
    await expect(load(a.certFile, a.certFile)).rejects.toThrow(`POS_TLS_KEY (${a.certFile}) is not an unencrypted PEM private key`);
    await expect(load(join(dir, 'nope.pem'), a.keyFile)).rejects.toThrow(`POS_TLS_CERT names ${join(dir, 'nope.pem')}, which does not exist.`);
    await expect(load(a.certFile, undefined)).rejects.toThrow('Give both POS_TLS_CERT and POS_TLS_KEY');
    await expect(load(a.certFile, a.keyFile, new ManualClock(Date.now() + 3 * 365 * DAY_MS))).rejects.toThrow(/^The certificate in POS_TLS_CERT .* expired on .*: renew it/);
    await expect(load(a.certFile, b.keyFile)).rejects.toBeInstanceOf(TlsIdentityError);
  });
});

describe('spkiPin: the store window trusts exactly the store’s certificate', () => {
  it('is the SHA-256 of the public key as openssl computes it (Chromium’s documented recipe)', async () => {
    const { cert } = await loadTlsIdentity({ dataDir: dir, hosts: ['127.0.0.2'] });
    const pubkey = execFileSync('openssl', ['x509', '-pubkey', '-noout'], { input: cert });
    const der = execFileSync('openssl', ['pkey', '-pubin', '-outform', 'der'], { input: pubkey });
    const expected = execFileSync('openssl', ['dgst', '-sha256', '-binary'], { input: der }).toString('base64');
    expect(spkiPin(cert)).toBe(expected);
    expect(appWindowArgs('https://127.0.0.2:5180/#launch=x', dir, expected)).toContain(`--ignore-certificate-errors-spki-list=${expected}`);
    expect(appWindowArgs('http://127.0.0.1:5180/#launch=x', dir).some((a) => a.startsWith('--ignore-certificate-errors'))).toBe(false);
  });
});
