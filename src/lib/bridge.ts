import type {
  ArgsOf,
  BridgeTransport,
  Envelope,
  ErrorCode,
  Method,
  PreloadApi,
  PushEvent,
  PushEvents,
  ResultOf,
  WireError,
} from '../../electron/core/contract.ts';
import type { UiError } from './errorText.ts';
import { BRIDGE_PATH, BRIDGE_PROTOCOL, LAUNCH_PROTOCOL_PREFIX, RESUME_PROTOCOL_PREFIX, TOKEN_PROTOCOL_PREFIX, type ServerMessage } from '../../electron/shared/ws-protocol.ts';

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

export interface Bridge {
  call<K extends Method>(method: K, ...args: ArgsOf<K> extends void ? [] : [ArgsOf<K>]): Promise<ResultOf<K>>;
  listen<E extends PushEvent>(event: E, listener: (payload: PushEvents[E]) => void): () => void;
  onConnection(listener: (state: ConnectionState) => void): () => void;
}

declare global {
  interface Window {
    pos?: PreloadApi;
  }
}

function ipcTransport(api: PreloadApi): BridgeTransport & { onConnection: Bridge['onConnection'] } {
  return {
    invoke: (method, args) => (api[method] as (a: unknown) => Promise<Envelope<unknown>>)(args),
    listen: (event, listener) => api.listen(event, listener as never),
    onConnection: (listener) => {
      listener('open');
      return () => undefined;
    },
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

/** What opens the bridge: the session token, or a one-time launch code (a window the app opened). */
export type Credential = { kind: 'token'; value: string } | { kind: 'launch'; value: string };

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

function socketTransport(credential: Credential | null, storage: Storage): BridgeTransport & { onConnection: Bridge['onConnection'] } {
  const pending = new Map<number, (env: Envelope<unknown>) => void>();
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const connectionListeners = new Set<(state: ConnectionState) => void>();
  let socket: WebSocket | null = null;
  let state: ConnectionState = 'connecting';
  let nextId = 1;
  let retryMs = 250;
  // Once connected, a drop is an outage to wait out, never a reason to think the token wrong.
  let everOpened = false;
  // Attempts in a row that never opened: after a restart with a new token they all fail.
  let failedAttempts = 0;
  const queue: string[] = [];
  // This page's sign-in on the server: offered again on a reconnect, never stored (a reload asks again).
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

  const connect = () => {
    if (!credential) {
      setState('unauthorized');
      return;
    }
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const prefix = credential.kind === 'launch' ? LAUNCH_PROTOCOL_PREFIX : TOKEN_PROTOCOL_PREFIX;
    const protocols = [BRIDGE_PROTOCOL, prefix + credential.value, ...(resumeKey === null ? [] : [RESUME_PROTOCOL_PREFIX + resumeKey])];
    const ws = new WebSocket(`${scheme}//${location.host}${BRIDGE_PATH}`, protocols);
    let opened = false;
    socket = ws;
    setState(failedAttempts >= LOST_AFTER_ATTEMPTS ? 'lost' : 'connecting');
    ws.onopen = () => {
      opened = true;
      everOpened = true;
      failedAttempts = 0;
      retryMs = 250;
      setState('open');
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
        pending.get(msg.id)?.(msg.envelope as Envelope<unknown>);
        pending.delete(msg.id);
      } else if (msg.type === 'event') {
        listeners.get(msg.event)?.forEach((l) => l(msg.payload));
      } else if (msg.type === 'resume') {
        resumeKey = msg.key;
      } else if (msg.type === 'session') {
        // A launch code works once: reconnects and reloads use the session token from now on.
        credential = { kind: 'token', value: msg.token };
        storage.setItem(TOKEN_KEY, msg.token);
      }
    };
    ws.onclose = () => {
      socket = null;
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
  connect();

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
        if (socket && socket.readyState === WebSocket.OPEN) socket.send(text);
        else queue.push(text);
      });
    },
    listen(event, listener) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener);
      return () => set.delete(listener);
    },
    onConnection(listener) {
      connectionListeners.add(listener);
      listener(state);
      return () => connectionListeners.delete(listener);
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

export function createBridge(): Bridge {
  const transport = window.pos ? ipcTransport(window.pos) : socketTransport(takeCredential(location, sessionStorage, history), sessionStorage);
  return {
    async call(method, ...args) {
      const envelope = (await transport.invoke(method, args[0])) as Envelope<ResultOf<typeof method>>;
      if (envelope.ok) return envelope.result;
      if (envelope.error.code === 'signed_out') signedOutListeners.forEach((l) => l());
      throw new BridgeError(envelope.error);
    },
    listen: (event, listener) => transport.listen(event, listener as (payload: unknown) => void),
    onConnection: (listener) => transport.onConnection(listener),
  };
}

let instance: Bridge | null = null;

/** The renderer's single bridge, created on first use. */
export function getBridge(): Bridge {
  instance ??= createBridge();
  return instance;
}
