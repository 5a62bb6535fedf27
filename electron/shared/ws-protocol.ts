/**
 * The browser shell's wire protocol: the renderer's transport and the server agree on it
 * here. Messages are JSON; replies carry the same envelope the Electron IPC carries.
 */
export const BRIDGE_PATH = '/bridge';
export const BRIDGE_PROTOCOL = 'pos.bridge.v1';
/** The per-run token travels as a second offered subprotocol, never in the URL. */
export const TOKEN_PROTOCOL_PREFIX = 'pos.token.';
/**
 * A one-time launch code, for the window the app opens itself: valid once, for a minute.
 * The server answers the connection with the session token (`session` message).
 */
export const LAUNCH_PROTOCOL_PREFIX = 'pos.launch.';
/**
 * The resume secret of a connection's sign-in (issue 23), which the server sends (`resume`
 * message) when an operator signs in on it: offered again by the same page when it reconnects
 * after a drop, to the same core or another that took over, it carries the sign-in over while
 * the journal says it has not ended. Right after connecting the server says the key the
 * connection goes on with: the one offered if its sign-in was resumed, '' if none was.
 * Kept in the page's memory only, so a reload asks who is at the till.
 */
export const RESUME_PROTOCOL_PREFIX = 'pos.resume.';

/**
 * A paired till's or customer display's credential (issue 9): 43 characters of base64url,
 * given once at pairing. A connection that offers no token, launch code or credential is an
 * unpaired device, which may only pair (`pairing.info`, `pairing.pair`).
 */
export const DEVICE_PROTOCOL_PREFIX = 'pos.device.';
/** The close code of a revoked device's connections: the page forgets its credential. */
export const REVOKED_CLOSE_CODE = 4401;

/** What a connection is, as the server says right after it connects. */
export interface DeviceHello {
  id: string;
  kind: 'till' | 'display';
  name: string;
  storeId: number;
  checkoutId: number;
}

/** A bridge call. */
export interface CallMessage {
  id: number;
  method: string;
  args: unknown;
}

/**
 * The push events this page listens to now, sent when it connects and whenever that set
 * changes: the server sends a connection no other push (issue 9: a till's page never shows
 * the customer display, whose push was a third of what a busy till was sent). Until a page
 * says, it is sent every push its connection may hear.
 */
export interface ListenMessage {
  listen: string[];
}

export type ClientMessage = CallMessage | ListenMessage;

/** The most push events a listen message may name (there are a handful). */
const MAX_LISTENED = 32;

export type ServerMessage =
  | { type: 'reply'; id: number; envelope: unknown }
  | { type: 'event'; event: string; payload: unknown }
  | { type: 'session'; token: string }
  | { type: 'resume'; key: string }
  /**
   * Sent right after connecting: what this connection is — the store computer's own window,
   * a paired device (which one), or an unpaired device. `reason` says why a credential
   * offered did not count: `unknown` (never paired here, or revoked before) or `revoked`
   * (sent when a manager revokes the device; then the socket closes with REVOKED_CLOSE_CODE).
   */
  | { type: 'device'; connection: 'store' | 'device' | 'unpaired'; device: DeviceHello | null; reason?: 'unknown' | 'revoked' };

/** Parses a message from the renderer; null for anything malformed. */
export function parseClientMessage(text: string): ClientMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  if ('listen' in value) {
    const { listen } = value as { listen: unknown };
    if (!Array.isArray(listen) || listen.length > MAX_LISTENED || !listen.every((e) => typeof e === 'string' && e.length > 0 && e.length <= 100)) return null;
    return { listen: [...new Set(listen as string[])] };
  }
  const { id, method, args } = value as Record<string, unknown>;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) return null;
  if (typeof method !== 'string' || method.length === 0 || method.length > 100) return null;
  return { id, method, args };
}
