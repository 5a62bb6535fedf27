import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CERTIFICATE_ACCEPTED, CERTIFICATE_REFUSED, certificateVerdict, pemFingerprint, readPeerFingerprint, storeLoadFailure } from './pinning.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const STORE_CERT = fixture('store.cert.pem');
const OTHER_CERT = fixture('other.cert.pem');
const STORE_FP = pemFingerprint(STORE_CERT) ?? '';

describe('certificateVerdict', () => {
  const pin = { origin: 'https://192.168.0.10:5180', fingerprint: STORE_FP };

  it('trusts the pinned certificate on the pinned host', () => {
    expect(STORE_FP).toMatch(/^[0-9A-F]{2}(:[0-9A-F]{2}){31}$/);
    expect(certificateVerdict({ hostname: '192.168.0.10', certificate: { data: STORE_CERT } }, pin)).toBe(CERTIFICATE_ACCEPTED);
  });

  it.each([
    ['another certificate on the pinned host', '192.168.0.10', OTHER_CERT, pin],
    ['the pinned certificate on another host', '192.168.0.11', STORE_CERT, pin],
    ['a look-alike host', '192.168.0.10.evil.example', STORE_CERT, pin],
    ['garbage instead of a certificate', '192.168.0.10', 'not a pem', pin],
    ['anything before a pin exists', '192.168.0.10', STORE_CERT, null],
  ])('refuses %s', (_name, hostname, data, p) => {
    expect(certificateVerdict({ hostname, certificate: { data } }, p)).toBe(CERTIFICATE_REFUSED);
  });

  it('compares host names without case or IPv6 brackets', () => {
    expect(certificateVerdict({ hostname: 'STORE.lan', certificate: { data: STORE_CERT } }, { origin: 'https://store.lan:5180', fingerprint: STORE_FP })).toBe(CERTIFICATE_ACCEPTED);
    expect(certificateVerdict({ hostname: 'fe80::1', certificate: { data: STORE_CERT } }, { origin: 'https://[fe80::1]:5180', fingerprint: STORE_FP })).toBe(CERTIFICATE_ACCEPTED);
  });
});

describe('readPeerFingerprint (a real TLS server on loopback)', () => {
  const tls = createTlsServer({ cert: STORE_CERT, key: fixture('store.key.pem') }, (socket) => socket.end());
  let plain: Server;
  const port = (s: { address(): unknown }) => (s.address() as AddressInfo).port;

  beforeAll(async () => {
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    plain = createHttpServer((_req, res) => res.end('plain'));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    await new Promise((r) => tls.close(r));
    plain.closeAllConnections();
    await new Promise((r) => plain.close(r));
  });

  it('reads the self-signed certificate the store presents', async () => {
    expect(await readPeerFingerprint(`https://127.0.0.1:${port(tls)}`)).toEqual({ ok: true, fingerprint: STORE_FP });
  });

  it('says a plain http server is not the store', async () => {
    expect(await readPeerFingerprint(`https://127.0.0.1:${port(plain)}`)).toEqual({ ok: false, problem: 'not_tls' });
  });

  it('says nothing answers on a closed port', async () => {
    const closed = createHttpServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const free = port(closed);
    await new Promise((r) => closed.close(r));
    expect(await readPeerFingerprint(`https://127.0.0.1:${free}`)).toEqual({ ok: false, problem: 'unreachable' });
  });
});

describe('storeLoadFailure', () => {
  it.each([
    [{ errno: -202, code: 'ERR_CERT_AUTHORITY_INVALID' }, 'certificate'],
    [{ errno: -200, code: 'ERR_CERT_COMMON_NAME_INVALID' }, 'certificate'],
    [{ code: 'ERR_CERT_DATE_INVALID' }, 'certificate'],
    [{ errno: -3, code: 'ERR_ABORTED' }, 'aborted'],
    [{ errno: -102, code: 'ERR_CONNECTION_REFUSED' }, 'unreachable'],
    [{ errno: -105, code: 'ERR_NAME_NOT_RESOLVED' }, 'unreachable'],
    [{ errno: -300, code: 'ERR_INVALID_URL' }, 'unreachable'],
    [new Error('anything'), 'unreachable'],
    [null, 'unreachable'],
  ])('%j -> %s', (err, expected) => {
    expect(storeLoadFailure(err)).toBe(expected);
  });
});
