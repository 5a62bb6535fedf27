import type {
  ArgsOf,
  BridgeTransport,
  Envelope,
  ErrorCode,
  DisplayPreloadApi,
  Method,
  PreloadApi,
  PushEvent,
  PushEvents,
  ResultOf,
  WireError,
} from '../../electron/core/contract.ts';
import type { UiError } from './errorText.ts';
import { isDeviceCredential, type PosDevice } from '../../electron/shared/device-bridge.ts';
import {
  BRIDGE_PATH,
  BRIDGE_PROTOCOL,
  DEVICE_PROTOCOL_PREFIX,
  LAUNCH_PROTOCOL_PREFIX,
  RESUME_PROTOCOL_PREFIX,
  REVOKED_CLOSE_CODE,
  TOKEN_PROTOCOL_PREFIX,
  type ListenMessage,
  type ServerMessage,
} from '../../electron/shared/ws-protocol.ts';

/**
 * The renderer's one door to the core. The same built renderer runs in both shells:
 * in Electron the preload's `window.pos` carries calls over IPC; in the browser shell a
 * WebSocket does. Everything above this module sees one typed `call` and `listen`.
 */
export class BridgeError extends Error {
  override name = 'BridgeError';
  readonly code: ErrorCode | 'disconnected' | 'unauthorized';
  readonly params: WireError['params'];
  constructor(error: { code: BridgeError['code']; message: string; params?: WireError['params'] }) {
    super(error.message);
    this.code = error.code;
    this.params = error.params;
  }
}

/** The error as the UI keeps it (errorText.ts words it); anything else thrown is `internal`. */
export function toUiError(err: unknown): UiError {
  if (err instanceof BridgeError) return { code: err.code, message: err.message, ...(err.params ? { params: err.params } : {}) };
  return { code: 'internal', message: String(err) };
}

/**
 * `lost`: closed, and every attempt to reconnect has failed for a while (the app may have
 * been restarted with a new token); still retrying.
 */
export type ConnectionState = 'connecting' | 'open' | 'closed' | 'lost' | 'unauthorized';

/** What the server said this connection is (its `device` message), as the page keeps it. */
export type DeviceHelloMessage = Extract<ServerMessage, { type: 'device' }>;
export type DeviceConnection = Omit<DeviceHelloMessage, 'type'>;

export interface Bridge {
  call<K extends Method>(method: K, ...args: ArgsOf<K> extends void ? [] : [ArgsOf<K>]): Promise<ResultOf<K>>;
  listen<E extends PushEvent>(event: E, listener: (payload: PushEvents[E]) => void): () => void;
  /**
   * Told the connection's state. `open` comes after what the connection is (onDevice) is
   * known, so a listener never asks a till's question on an unpaired or display connection.
   */
  onConnection(listener: (state: ConnectionState) => void): () => void;
  /** What this connection is: the store's own window, a paired device (which one), or unpaired. */
  onDevice(listener: (device: DeviceConnection) => void): () => void;
  /** Keeps a credential just given by pairing and connects again as that device. */
  adoptCredential(credential: string): Promise<void>;
}

/**
 * Where a paired device keeps its credential: the Electron till's preload (main keeps it with
 * safeStorage) when there is one, else this browser's own storage (issue 9, point 2).
 */
export type DeviceCredentialStore = PosDevice;

declare global {
  interface Window {
    /** The store computer's windows: the till's whole bridge, or the customer display's screen only. */
    pos?: PreloadApi | DisplayPreloadApi;
    /** The Electron till in "Connect to the store" mode: its credential, kept with safeStorage. */
    posDevice?: DeviceCredentialStore;
  }
}

export const DEVICE_CREDENTIAL_KEY = 'pos.deviceCredential';

/** A browser's device credential: in its own storage for this origin, surviving a restart. */
export function browserCredentialStore(storage: Storage): DeviceCredentialStore {
  return {
    load: () => {
      const kept = storage.getItem(DEVICE_CREDENTIAL_KEY);
      return Promise.resolve(kept === null || isDeviceCredential(kept) ? kept : null);
    },
    save: (credential) => Promise.resolve(storage.setItem(DEVICE_CREDENTIAL_KEY, credential)),
    forget: () => Promise.resolve(storage.removeItem(DEVICE_CREDENTIAL_KEY)),
  };
}

type Transport = BridgeTransport & Pick<Bridge, 'onConnection' | 'onDevice' | 'adoptCredential'>;

function ipcTransport(api: PreloadApi | DisplayPreloadApi): Transport {
  return {
    invoke: (method, args) => {
      // The customer display's window has its screen only (preload/display.ts).
      const call = (api as Partial<PreloadApi>)[method] as ((a: unknown) => Promise<Envelope<unknown>>) | undefined;
      return call ? call(args) : Promise.resolve({ ok: false, error: { code: 'unknown_method', message: `This window cannot call ${method}.` } });
    },
    listen: (event, listener) => api.listen(event, listener as never),
    onConnection: (listener) => {
      listener('open');
      return () => undefined;
    },
    // The Electron store computer's windows are the store's own: never a device.
    onDevice: (listener) => {
      listener({ connection: 'store', device: null });
      return () => undefined;
    },
    adoptCredential: () => Promise.reject(new Error('the store computer’s own window is not paired')),
  };
}

const TOKEN_KEY = 'pos.bridgeToken';

/** Failed reconnection attempts in a row before the page also says how to connect again. */
const LOST_AFTER_ATTEMPTS = 5;

/** Takes the token from the address fragment once, keeps it for reloads, and hides it. */
export function takeToken(loc: Location, storage: Storage, history: History): string | null {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(loc.hash);
  if (match?.[1]) {
    storage.setItem(TOKEN_KEY, match[1]);
    history.replaceState(null, '', loc.pathname + loc.search);
    return match[1];
  }
  return storage.getItem(TOKEN_KEY);
}

/**
 * What opens the bridge: the session token, or a one-time launch code (a window the app
 * opened), or a paired device's credential. None at all is a device not paired yet.
 */
export type Credential = { kind: 'token'; value: string } | { kind: 'launch'; value: string } | { kind: 'device'; value: string };

/** The subprotocols a connection offers for its credential (none: an unpaired device). */
export function credentialProtocols(credential: Credential | null, resumeKey: string | null): string[] {
  const prefix = credential === null ? null : { token: TOKEN_PROTOCOL_PREFIX, launch: LAUNCH_PROTOCOL_PREFIX, device: DEVICE_PROTOCOL_PREFIX }[credential.kind];
  return [BRIDGE_PROTOCOL, ...(credential && prefix ? [prefix + credential.value] : []), ...(resumeKey === null ? [] : [RESUME_PROTOCOL_PREFIX + resumeKey])];
}

export function takeCredential(loc: Location, storage: Storage, history: History): Credential | null {
  const launch = /(?:^#|&)launch=([A-Za-z0-9_-]+)/.exec(loc.hash);
  if (launch?.[1]) {
    history.replaceState(null, '', loc.pathname + loc.search);
    return { kind: 'launch', value: launch[1] };
  }
  const token = takeToken(loc, storage, history);
  return token === null ? null : { kind: 'token', value: token };
}

/**
 * The customer display's address in the browser shell, carrying this page's token in the
 * fragment exactly as the main page received it (sessionStorage is per tab). Null in the
 * Electron shell, whose main process opens the display window itself.
 */
export function displayAddress(storage: Storage = sessionStorage, isElectron = window.pos !== undefined): string | null {
  if (isElectron) return null;
  const token = storage.getItem(TOKEN_KEY);
  return token ? `/display#token=${encodeURIComponent(token)}` : null;
}

/**
 * `store` is the store window's token or launch code; without one, the device credential
 * kept by `devices` is read before the first connection (none: connect unpaired).
 */
export function socketTransport(store: Credential | null, storage: Storage, devices: DeviceCredentialStore): Transport {
  let credential: Credential | null = store;
  const pending = new Map<number, (env: Envelope<unknown>) => void>();
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const connectionListeners = new Set<(state: ConnectionState) => void>();
  const deviceListeners = new Set<(device: DeviceConnection) => void>();
  let device: DeviceConnection | null = null;
  let socket: WebSocket | null = null;
  let state: ConnectionState = 'connecting';
  let nextId = 1;
  let retryMs = 250;
  // Once connected, a drop is an outage to wait out, never a reason to think the token wrong.
  let everOpened = false;
  // Attempts in a row that never opened: after a restart with a new token they all fail.
  let failedAttempts = 0;
  const queue: string[] = [];
  // This page's sign-in's resume secret (issue 23), given at sign-in: offered again on a
  // reconnect, to this core or the one that took over. In memory only, never in any storage:
  // a reload asks for the PIN again.
  let resumeKey: string | null = null;

  const setState = (s: ConnectionState) => {
    state = s;
    connectionListeners.forEach((l) => l(s));
  };

  const failPending = (code: 'disconnected' | 'unauthorized', message: string) => {
    for (const resolve of pending.values()) resolve({ ok: false, error: { code: code as ErrorCode, message } });
    pending.clear();
    // A call the UI was told failed must never be sent later (a charge would then run
    // behind the cashier's back and become the checkout's newest sale).
    queue.length = 0;
  };

  /** A credential the store no longer knows (revoked, or from another store): back to unpaired. */
  const forgetDevice = () => {
    if (credential?.kind !== 'device') return;
    credential = null;
    resumeKey = null;
    void devices.forget().catch(() => undefined);
  };

  /** Tells the server which push events this page listens to now (ListenMessage). */
  const sayListening = () => {
    if (socket?.readyState !== WebSocket.OPEN) return;
    socket.send(JSON.stringify({ listen: [...listeners].filter(([, set]) => set.size > 0).map(([event]) => event) } satisfies ListenMessage));
  };

  const connect = () => {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${scheme}//${location.host}${BRIDGE_PATH}`, credentialProtocols(credential, resumeKey));
    let opened = false;
    socket = ws;
    setState(failedAttempts >= LOST_AFTER_ATTEMPTS ? 'lost' : 'connecting');
    ws.onopen = () => {
      opened = true;
      everOpened = true;
      failedAttempts = 0;
      retryMs = 250;
      // `open` is said once the server has said what this connection is (the device message).
      // What the page listens to goes first: a call queued after a listener was added (a
      // screen that then reads its state) is answered after the server knows of it.
      sayListening();
      for (const msg of queue.splice(0)) ws.send(msg);
    };
    ws.onmessage = (e) => {
      let msg: ServerMessage;
      try {
        msg = JSON.parse(String(e.data)) as ServerMessage;
      } catch {
        return;
      }
      if (msg.type === 'reply') {
        stepMark('reply');
        pending.get(msg.id)?.(msg.envelope as Envelope<unknown>);
        pending.delete(msg.id);
      } else if (msg.type === 'event') {
        stepMark(`event ${msg.event}`);
        listeners.get(msg.event)?.forEach((l) => l(msg.payload));
        stepMark(`handled ${msg.event}`);
      } else if (msg.type === 'resume') {
        // '': the connection is not signed in (a wrong or ended secret): nothing to offer next time.
        resumeKey = msg.key === '' ? null : msg.key;
      } else if (msg.type === 'session') {
        // A launch code works once: reconnects and reloads use the session token from now on.
        credential = { kind: 'token', value: msg.token };
        storage.setItem(TOKEN_KEY, msg.token);
      } else if (msg.type === 'device') {
        if (msg.reason !== undefined) forgetDevice();
        device = { connection: msg.connection, device: msg.device, ...(msg.reason ? { reason: msg.reason } : {}) };
        deviceListeners.forEach((l) => l(device as DeviceConnection));
        if (msg.reason !== 'revoked') setState('open');
      }
    };
    ws.onclose = (e) => {
      socket = null;
      if (e.code === REVOKED_CLOSE_CODE) {
        // Revoked by a manager: its sign-in and credential end here; it may only pair again.
        forgetDevice();
        failPending('disconnected', 'This device was revoked: it must be paired again.');
        setState('closed');
        connect();
        return;
      }
      if (!everOpened && retryMs >= 4000) {
        // Refused over and over before ever opening: the token is wrong or stale.
        setState('unauthorized');
        failPending('unauthorized', 'This window is not connected to the cashier app: open the address it printed.');
        return;
      }
      if (!opened) failedAttempts++;
      failPending('disconnected', 'The connection to the cashier app was lost; try again.');
      setState(failedAttempts >= LOST_AFTER_ATTEMPTS ? 'lost' : 'closed');
      setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 8000);
    };
  };
  const start = async () => {
    if (credential === null) {
      const kept = await devices.load().catch(() => null);
      if (kept) credential = { kind: 'device', value: kept };
    }
    connect();
  };
  void start();

  return {
    invoke(method, args) {
      return new Promise((resolve) => {
        if (state === 'unauthorized') {
          resolve({ ok: false, error: { code: 'unauthorized' as ErrorCode, message: 'This window is not connected to the cashier app: open the address it printed.' } });
          return;
        }
        const id = nextId++;
        pending.set(id, resolve);
        const text = JSON.stringify({ id, method, args });
        stepMark(`send ${method}`);
        if (socket && socket.readyState === WebSocket.OPEN) socket.send(text);
        else queue.push(text);
      });
    },
    listen(event, listener) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener);
      if (set.size === 1) sayListening();
      return () => {
        if (set.delete(listener) && set.size === 0) sayListening();
      };
    },
    onConnection(listener) {
      connectionListeners.add(listener);
      listener(state);
      return () => connectionListeners.delete(listener);
    },
    onDevice(listener) {
      deviceListeners.add(listener);
      if (device) listener(device);
      return () => deviceListeners.delete(listener);
    },
    async adoptCredential(value) {
      await devices.save(value);
      credential = { kind: 'device', value };
      // The unpaired connection's sign-in key is no good for the device: it starts afresh.
      resumeKey = null;
      const old = socket;
      if (old) {
        // Closed on purpose: its close must not count as an outage.
        old.onclose = null;
        old.close();
        socket = null;
        failPending('disconnected', 'Connecting again as this paired device.');
      }
      setState('connecting');
      connect();
    },
  };
}

const signedOutListeners = new Set<() => void>();

/**
 * Told when the core answers a call with signed_out: this window's sign-in is gone (the till
 * locked, the operator was disabled, the connection was made anew), so the screen asks again.
 */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/**
 * Where a sale's time goes in the page (issue 28): the UI bench (e2e/bench.ts) puts a list in
 * `posStepMarks` before the page loads, and the bridge notes in it when a call is sent, a
 * reply or push arrives and a push has been handled. The app has no such list: one lookup.
 */
function stepMark(what: string): void {
  const marks = (globalThis as { posStepMarks?: { what: string; at: number }[] }).posStepMarks;
  if (marks !== undefined) marks.push({ what, at: performance.now() });
}

export function createBridge(): Bridge {
  const transport = window.pos
    ? ipcTransport(window.pos)
    : socketTransport(takeCredential(location, sessionStorage, history), sessionStorage, window.posDevice ?? browserCredentialStore(localStorage));
  return {
    async call(method, ...args) {
      const envelope = (await transport.invoke(method, args[0])) as Envelope<ResultOf<typeof method>>;
      if (envelope.ok) return envelope.result;
      if (envelope.error.code === 'signed_out') signedOutListeners.forEach((l) => l());
      throw new BridgeError(envelope.error);
    },
    listen: (event, listener) => transport.listen(event, listener as (payload: unknown) => void),
    onConnection: (listener) => transport.onConnection(listener),
    onDevice: (listener) => transport.onDevice(listener),
    adoptCredential: (credential) => transport.adoptCredential(credential),
  };
}

let instance: Bridge | null = null;

/** The renderer's single bridge, created on first use. */
export function getBridge(): Bridge {
  instance ??= createBridge();
  return instance;
}
