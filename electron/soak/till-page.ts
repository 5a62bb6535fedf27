/**
 * One till's page, in a worker thread of its own: the renderer's own bridge
 * (src/lib/bridge.ts createBridge) as a browser at the front's address runs it, with that
 * page's location, storage and WebSocket (which sends the page's origin and trusts the
 * store's certificate), and the device credential kept from pairing. When its connection
 * ends, the bridge connects again by itself, as it does at a counter; nothing here
 * reconnects for it. The campaign sends calls as messages and gets the envelopes back.
 *
 * workerData: { origin, ca, credential }. Messages in: { id, method, args }; out:
 * { id, envelope } and { state } for each connection state the bridge goes through.
 */
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import { BridgeError, createBridge } from '../../src/lib/bridge.ts';
import type { Envelope } from '../core/errors.ts';

interface PageData {
  origin: string;
  ca: string;
  credential: string;
}

const page = workerData as PageData;
const url = new URL(page.origin);

class PageSocket extends WebSocket {
  constructor(address: string, protocols: string[]) {
    super(address, protocols, { origin: page.origin, ca: page.ca });
    // A browser's socket reports a failure as a close event only.
    this.on('error', () => undefined);
  }
}

const memory = () => {
  const items = new Map<string, string>();
  return { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v), removeItem: (k: string) => void items.delete(k) };
};
const globals = globalThis as Record<string, unknown>;
globals.WebSocket = PageSocket;
globals.location = { protocol: url.protocol, host: url.host, hash: '', pathname: '/', search: '' };
globals.history = { replaceState: () => undefined };
globals.sessionStorage = memory();
globals.localStorage = memory();
globals.window = { posDevice: { load: () => Promise.resolve(page.credential), save: () => Promise.resolve(), forget: () => Promise.resolve() } };

const bridge = createBridge();
const port = parentPort;
if (port === null) throw new Error('till-page.ts runs as a worker thread');
bridge.onConnection((state) => port.postMessage({ state }));
port.on('message', (msg: { id: number; method: string; args?: unknown }) => {
  const call = bridge.call as (method: string, args?: unknown) => Promise<unknown>;
  call(msg.method, msg.args).then(
    (result) => port.postMessage({ id: msg.id, envelope: { ok: true, result } satisfies Envelope<unknown> }),
    (err: unknown) =>
      port.postMessage({
        id: msg.id,
        envelope: err instanceof BridgeError ? { ok: false, error: { code: err.code, message: err.message } } : { ok: false, error: { code: 'internal', message: String(err) } },
      }),
  );
});
