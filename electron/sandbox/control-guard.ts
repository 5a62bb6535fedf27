/**
 * Who may drive the control API (contract 7). It has no credential by design, so a web page
 * the user happens to visit must not be able to reach it: a cross-origin "simple" request
 * (a form post, `fetch` with `text/plain`) or a DNS-rebound name would otherwise pay sales or
 * repoint webhooks. Tests, tools and curl are not browsers: they send no `Origin`, they name
 * the sandbox by a loopback address, and they label their JSON as JSON.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface ControlRefusal {
  status: 403 | 415 | 421;
  detail: string;
}

export interface ControlCaller {
  headers: IncomingHttpHeaders;
  /** The peer's address as the socket saw it. */
  remoteAddress: string;
  /** The port the sandbox listens on: a Host naming another port was meant for someone else. */
  port: number;
}

/** null when the caller may go on; else the refusal to answer. No header is ever added for CORS. */
export function refuseControlCaller(caller: ControlCaller): ControlRefusal | null {
  // Browsers send Origin on every cross-origin request and every POST (even `Origin: null`
  // from a sandboxed frame or a file); the control API's callers never do.
  if (caller.headers.origin !== undefined) return { status: 403, detail: 'The control API does not answer web pages (a request with an Origin header).' };
  if (!isLoopbackAddress(caller.remoteAddress)) return { status: 403, detail: 'The control API answers this computer only.' };
  // DNS rebinding: a name the attacker controls resolving to 127.0.0.1 still carries its own Host.
  if (!isLoopbackHost(caller.headers.host, caller.port)) return { status: 421, detail: 'Misdirected Request: name the sandbox as 127.0.0.1, [::1] or localhost with its port.' };
  return null;
}

/**
 * A body must be labelled JSON: `text/plain`, `application/x-www-form-urlencoded` and
 * `multipart/form-data` are what a page may send cross-origin without asking first.
 */
export function refuseControlBody(headers: IncomingHttpHeaders, bodyBytes: number): ControlRefusal | null {
  const type = headers['content-type'];
  if (type === undefined && bodyBytes === 0) return null;
  const essence = (type ?? '').split(';')[0]?.trim().toLowerCase();
  if (essence === 'application/json') return null;
  return { status: 415, detail: 'Unsupported Media Type: control bodies are JSON; send Content-Type: application/json' };
}

/** `127.0.0.0/8`, `::1`, and IPv4 loopback seen through an IPv6 socket. */
export function isLoopbackAddress(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4 === '::1' || isLoopbackIPv4(v4);
}

/** The Host header names a loopback address or `localhost`, with exactly this port. */
export function isLoopbackHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const m = /^(\[::1\]|[^:[\]]+):(\d{1,5})$/.exec(host.trim());
  if (m === null) return false;
  const [, name = '', portText = ''] = m;
  if (Number(portText) !== port || portText !== String(Number(portText))) return false;
  return name.toLowerCase() === 'localhost' || name === '[::1]' || isLoopbackIPv4(name);
}

function isLoopbackIPv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts[0] === '127' && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}
