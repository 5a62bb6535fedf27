import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { connect } from 'node:tls';
import type { ReadProblem } from '../shared/setup-bridge.ts';

/**
 * The connect-mode till trusts exactly one certificate: the one whose SHA-256 fingerprint the
 * person compared with the store's Devices screen when pairing. The store's certificate is
 * usually self-signed, so no CA vouches for it; the pin is what does.
 */
export interface Pin {
  origin: string;
  fingerprint: string;
}

/** session.setCertificateVerifyProc's answers: trust it, or refuse it (never -3, Chromium's own verdict). */
export const CERTIFICATE_ACCEPTED = 0;
export const CERTIFICATE_REFUSED = -2;

/** Host names compare without IPv6 brackets (URL keeps them, Chromium's request does not) and case. */
function bareHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/** The SHA-256 fingerprint ("AB:CD:…") of a PEM certificate, or null if it is not one. */
export function pemFingerprint(pem: unknown): string | null {
  if (typeof pem !== 'string') return null;
  try {
    return new X509Certificate(pem).fingerprint256;
  } catch {
    return null;
  }
}

/**
 * The verdict on a server certificate Chromium asks about. Only the pinned host with the
 * pinned certificate is trusted; every other certificate, of any host, is refused whatever a
 * CA says: a paired till talks to its store and nothing else (its page's CSP says the same),
 * and no certificate error is ever waved through (no `certificate-error` handler exists).
 */
export function certificateVerdict(request: { hostname: string; certificate: { data: string } }, pin: Pin | null): number {
  if (pin === null) return CERTIFICATE_REFUSED;
  let pinnedHost: string;
  try {
    pinnedHost = bareHost(new URL(pin.origin).hostname);
  } catch {
    return CERTIFICATE_REFUSED;
  }
  if (bareHost(request.hostname) !== pinnedHost) return CERTIFICATE_REFUSED;
  return pemFingerprint(request.certificate.data) === pin.fingerprint ? CERTIFICATE_ACCEPTED : CERTIFICATE_REFUSED;
}

/** How long the setup page waits for the store to answer before saying it cannot be reached. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Reads the certificate the server at an https origin presents, for the person to compare
 * with the store's screen. rejectUnauthorized is off for this one handshake ONLY so that a
 * self-signed certificate can be read at all: nothing is sent on the connection, it is closed
 * at once, and nothing is trusted until the person confirms the fingerprint.
 */
export function readPeerFingerprint(origin: string): Promise<{ ok: true; fingerprint: string } | { ok: false; problem: ReadProblem }> {
  const url = new URL(origin);
  const host = bareHost(url.hostname);
  const port = url.port === '' ? 443 : Number(url.port);
  return new Promise((resolve) => {
    const socket = connect({ host, port, rejectUnauthorized: false, ...(isIP(host) === 0 ? { servername: host } : {}) });
    const finish = (result: { ok: true; fingerprint: string } | { ok: false; problem: ReadProblem }) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => finish({ ok: false, problem: 'unreachable' }));
    socket.once('secureConnect', () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      finish(typeof fingerprint === 'string' && fingerprint !== '' ? { ok: true, fingerprint } : { ok: false, problem: 'not_tls' });
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      // A connection that opened but did not speak TLS (plain http on that port) is not the store's shell.
      const tcpProblem = ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET'].includes(err.code ?? '');
      finish({ ok: false, problem: tcpProblem ? 'unreachable' : 'not_tls' });
    });
  });
}

/**
 * Why the pinned store's page did not load, from the error webContents.loadURL rejects with
 * (Chromium's net error number): a certificate the pin refused (net errors -200 to -299),
 * a navigation that was cancelled (-3, e.g. by the navigation guard; nothing to tell), or
 * a store that did not answer.
 */
export function storeLoadFailure(err: unknown): 'certificate' | 'aborted' | 'unreachable' {
  const { errno, code } = (typeof err === 'object' && err !== null ? err : {}) as { errno?: unknown; code?: unknown };
  if (errno === -3 || code === 'ERR_ABORTED') return 'aborted';
  if ((typeof errno === 'number' && errno <= -200 && errno > -300) || (typeof code === 'string' && code.startsWith('ERR_CERT_'))) return 'certificate';
  return 'unreachable';
}
