/**
 * Errors that cross the bridge. Electron flattens thrown errors to strings, so every
 * failure travels as a WireError inside an envelope and is rebuilt on the other side.
 * `message` is a sentence a person can act on (English, for logs); `code` and `params`
 * let the renderer say the same in the cashier's language.
 */
export type ErrorCode =
  | 'invalid_argument'
  | 'unknown_method'
  | 'not_ready'
  | 'service_unreachable'
  | 'service_timeout'
  | 'service_rejected'
  | 'service_failed'
  | 'conflict'
  | 'not_found'
  | 'journal_unavailable'
  /** The signed-in operator's role may not do this; params.role names the least role that may. */
  | 'forbidden'
  /** No operator is signed in on this connection. */
  | 'signed_out'
  /** A name and PIN that do not match (params.reason wrong_pin), or a locked operator (locked, until). */
  | 'sign_in_refused'
  /** A pairing code refused: params.reason wrong_code, expired, used or too_many_attempts. */
  | 'pairing_refused'
  /** This connection is not a paired device (never paired, or revoked): it may only pair. */
  | 'not_paired'
  | 'internal';

export type ErrorParams = Readonly<Record<string, string | number | boolean | null>>;

export interface WireError {
  code: ErrorCode;
  message: string;
  params?: ErrorParams;
}

export type Envelope<T> = { ok: true; result: T } | { ok: false; error: WireError };

export class CoreError extends Error {
  override name = 'CoreError';
  readonly code: ErrorCode;
  readonly params: ErrorParams | undefined;
  constructor(code: ErrorCode, message: string, params?: ErrorParams, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.params = params;
  }
  toWire(): WireError {
    return this.params === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, params: this.params };
  }
}

/** Anything thrown becomes a WireError; an unexpected one never leaks its internals. */
export function toWireError(err: unknown): WireError {
  if (err instanceof CoreError) return err.toWire();
  return { code: 'internal', message: 'Something went wrong inside the cashier app; the details are in its log.' };
}
