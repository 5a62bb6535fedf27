import { connect } from 'node:net';
import { CoreError } from '../errors.ts';

/**
 * A receipt printer on the network: the raw TCP port (9100 by default) that ESC/POS printers
 * listen on. `readPrinterAddress` is the one reader of what a manager types for it; `sendToPrinter`
 * delivers bytes, and a printer that does not answer becomes one sentence, never a hang.
 */

export const DEFAULT_PRINTER_PORT = 9100;

export interface PrinterAddress {
  host: string;
  port: number;
}

export type AddressProblem = 'empty' | 'host' | 'port';

export type ReadAddress = { ok: true; address: PrinterAddress } | { ok: false; problem: AddressProblem };

/** A DNS name or IPv4 address: letters, digits, dots and hyphens, no label starting or ending with a hyphen. */
const HOST = /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
/** An IPv6 address, written in brackets as in a URL: [fe80::1]:9100. */
const IPV6 = /^\[([0-9A-Fa-f:.]{2,45})\]$/;

/**
 * `host`, `host:port`, `[ipv6]` or `[ipv6]:port`, as a manager types it. Never guesses: a
 * port that is not a whole number from 1 to 65535, or a host with spaces, a scheme or a path,
 * is refused with what is wrong.
 */
export function readPrinterAddress(typed: string): ReadAddress {
  const text = typed.trim();
  if (text === '') return { ok: false, problem: 'empty' };
  const split = /^(\[[^\]]*\]|[^:]*)(?::([^:]*))?$/.exec(text);
  if (split === null) return { ok: false, problem: 'host' };
  const [, hostPart = '', portPart] = split;
  let port = DEFAULT_PRINTER_PORT;
  if (portPart !== undefined) {
    if (!/^\d{1,5}$/.test(portPart)) return { ok: false, problem: 'port' };
    port = Number(portPart);
    if (port < 1 || port > 65_535) return { ok: false, problem: 'port' };
  }
  const v6 = IPV6.exec(hostPart);
  if (v6?.[1] !== undefined) return v6[1].includes(':') ? { ok: true, address: { host: v6[1], port } } : { ok: false, problem: 'host' };
  if (!HOST.test(hostPart)) return { ok: false, problem: 'host' };
  return { ok: true, address: { host: hostPart.toLowerCase(), port } };
}

/** How an address is written back (settings, sentences): host:port, IPv6 in brackets. */
export function printerAddressText(address: PrinterAddress): string {
  return `${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
}

export const ADDRESS_PROBLEM_TEXT: Record<AddressProblem, string> = {
  empty: 'Type the printer’s address, like 192.168.0.50 or 192.168.0.50:9100.',
  host: 'The printer’s address must be a network name or IP address, like 192.168.0.50, optionally followed by :port.',
  port: 'The printer’s port must be a whole number from 1 to 65535 (receipt printers usually listen on 9100).',
};

export interface SendOptions {
  /** How long to wait for the printer to accept the connection. */
  connectTimeoutMs?: number;
  /** How long, once connected, the whole receipt may take to go out. */
  writeTimeoutMs?: number;
}

const CONNECT_TIMEOUT_MS = 3_000;
const WRITE_TIMEOUT_MS = 10_000;

/** Why a printer did not take a receipt, for the sentence and the screen's words (`params.problem`). */
export type PrinterProblem = 'refused' | 'timeout' | 'not_found' | 'failed';

function unreachable(address: PrinterAddress, problem: PrinterProblem, cause?: unknown): CoreError {
  const where = printerAddressText(address);
  const why: Record<PrinterProblem, string> = {
    refused: `The printer at ${where} refused the connection: check that it is on and that the address is right, then print again.`,
    timeout: `The printer at ${where} did not answer: check that it is on and connected to the network, then print again.`,
    not_found: `No printer named ${address.host} was found on the network: check the address in Settings.`,
    failed: `The connection to the printer at ${where} failed before the receipt was sent: check the printer, then print again.`,
  };
  return new CoreError('conflict', `${why[problem]} Nothing else was changed.`, { problem: 'printer_unreachable', printer: where, reason: problem }, { cause });
}

function problemOf(err: NodeJS.ErrnoException): PrinterProblem {
  switch (err.code) {
    case 'ECONNREFUSED':
    case 'ECONNRESET':
      return 'refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'not_found';
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'timeout';
    default:
      return 'failed';
  }
}

/**
 * Sends the bytes over one TCP connection and closes it. Resolves once they are handed to the
 * network; rejects with a CoreError sentence when the printer refuses, is not found, or does not
 * accept the connection (or the bytes) in time. Nothing is retried: a person presses Print again.
 */
export function sendToPrinter(address: PrinterAddress, bytes: Uint8Array, options: SendOptions = {}): Promise<void> {
  const connectMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const writeMs = options.writeTimeoutMs ?? WRITE_TIMEOUT_MS;
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const socket = connect({ host: address.host, port: address.port });
    const finish = (err?: CoreError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        socket.destroy();
        reject(err);
      } else {
        resolve();
      }
    };
    let timer = setTimeout(() => finish(unreachable(address, 'timeout')), connectMs);
    socket.on('error', (err: NodeJS.ErrnoException) => finish(unreachable(address, problemOf(err), err)));
    socket.once('connect', () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(unreachable(address, 'timeout')), writeMs);
      socket.end(bytes, () => {
        finish();
        // A printer that never closes its side must not hold the socket open.
        setTimeout(() => socket.destroy(), 1_000).unref();
      });
    });
  });
}
