/**
 * What every route of the table is made of: its definition, who may call it, when a failed
 * attempt is sent again, and how its path, query and amounts are written before anything
 * is sent.
 */
import { formatCents } from '../../../shared/money.ts';
import { CoreError } from '../../errors.ts';
import type { ParsedErrorBody } from '../error-body.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH';
export type Scope = 'pay_in' | 'pay_out';
export type Role = 'manager' | 'supervisor' | 'cashier';

/** Who may call a route (contract 1; reference 5 for administration). */
export interface Access {
  scopes: readonly Scope[];
  /** Roles allowed; 'any' when every role of a token with the scope may call it. */
  roles: readonly Role[] | 'any';
}

/**
 * When a failed attempt (network error, timeout, 5xx, 429) is sent again:
 * - `always`: a read; repeating it changes nothing.
 * - `idempotency_key`: a create the service de-duplicates by `Idempotency-Key` (contract 2);
 *   repeated only when the caller gives a key, and always with that same key.
 * - `key_sent_once`: a write that carries the caller's `Idempotency-Key` but that the client
 *   never repeats by itself: whether the service honours the key is not known (a refund:
 *   REFUND_KEYS below), so the caller's follow-up decides, or a person does.
 * - `never`: a write repeating could double (a second store, checkout or claim);
 *   a person decides after reading the error's outcome.
 */
export type RetryPolicy = 'always' | 'idempotency_key' | 'key_sent_once' | 'never';

/** Contract 2: the service keeps an Idempotency-Key 24 hours; after that the same key is a new request. */
export const IDEMPOTENCY_KEY_WINDOW_MS = 24 * 3_600_000;

/** How the service treats a refund's Idempotency-Key: what may be asked again without a person. */
export interface RefundKeyContract {
  /** The provider is known to de-duplicate refunds by Idempotency-Key. */
  readonly honoured: boolean;
  /** How long the service keeps a key (contract 2: 24 hours); after that a repeat is a new refund. */
  readonly windowMs: number;
}

/**
 * Contract 5 does not promise that a refund honours an Idempotency-Key, and contract 2 keeps
 * a key for 24 hours only. A refund whose answer was lost is asked again by itself only while
 * its key is inside that window AND the provider is known to honour refund keys; otherwise a
 * person decides (terminal/refunding.ts). A provider that documents refund keys changes
 * `honoured` here, and nothing else.
 */
export const REFUND_KEYS: RefundKeyContract = { honoured: false, windowMs: IDEMPOTENCY_KEY_WINDOW_MS };

type ParamNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}` ? N | ParamNames<Rest> : never;

/** Path parameters typed from the template: `/v2/stores/{store_id}` needs `params.store_id`. */
export type PathParams<P extends string> = [ParamNames<P>] extends [never]
  ? { params?: undefined }
  : { params: { readonly [K in ParamNames<P>]: string | number } };

export type QueryValue = string | number | boolean | undefined;

export type Encoded<P extends string> = PathParams<P> & {
  query?: Readonly<Record<string, QueryValue>>;
  body?: object;
};

export interface RouteDef<P extends string, In, Out> {
  readonly method: HttpMethod;
  /** Path template; `{name}` segments are filled from `encode(...).params`. */
  readonly path: P;
  /** What the call does, as a sentence fragment: "could not <action>". */
  readonly action: string;
  readonly access: Access;
  readonly retry: RetryPolicy;
  /** Statuses that mean success; another 2xx is still decoded, and logged as unexpected. */
  readonly success: readonly number[];
  /** The answers this route relies on that the reference does not show (contract or our reading). */
  readonly assumptions: readonly string[];
  readonly encode: (input: In) => Encoded<P>;
  readonly decode: (body: unknown, status: number, input: In) => Out;
  /** A non-2xx status that is a normal answer of this route, not an error (e.g. Tx Status 404). */
  readonly answer?: (status: number, body: ParsedErrorBody, input: In) => Out | undefined;
}

export function route<const P extends string, In, Out>(def: RouteDef<P, In, Out>): RouteDef<P, In, Out> {
  return def;
}

// ── Access rules (contract 1) ────────────────────────────────────────────────────────────

export const ADMINISTRATION: Access = { scopes: ['pay_in'], roles: ['manager'] };
export const PAY_IN: Access = { scopes: ['pay_in'], roles: 'any' };
export const WALLETS: Access = { scopes: ['pay_in', 'pay_out'], roles: 'any' };
export const PAY_OUT: Access = { scopes: ['pay_out'], roles: ['manager', 'supervisor'] };

/** An assumption several administration writes share. */
export const NOT_SHOWN_CREATE_STATUS = 'Success status of create/update is not shown (reference 4.5): any of 200 or 201 is success.';

// ── Input checks made before anything is sent ────────────────────────────────────────────

/** An amount the app asks the service to charge or refund: whole cents, above zero. */
export function centsToWire(cents: number, field: string): string {
  if (!Number.isSafeInteger(cents) || cents <= 0) {
    throw new CoreError('invalid_argument', `The ${field} must be a positive amount in whole cents; nothing was sent to the payment service.`, { field });
  }
  return formatCents(cents);
}

/**
 * Fills a path template. Integer ids must be positive safe integers (reference 4: `*_id`
 * path parameters that are integers are integers); string ids must be non-empty and are
 * percent-encoded, so an id can never change which route is called.
 */
export function buildPath(template: string, params: Readonly<Record<string, string | number>> | undefined): string {
  return template.replace(/\{([a-z_]+)\}/g, (_whole, name: string) => {
    const value = params?.[name];
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value) || value <= 0) {
        throw new CoreError('invalid_argument', `${name} must be a positive whole number; nothing was sent to the payment service.`, { field: name });
      }
      return String(value);
    }
    if (typeof value !== 'string' || value.trim() === '') {
      throw new CoreError('invalid_argument', `${name} is missing; nothing was sent to the payment service.`, { field: name });
    }
    return encodeURIComponent(value);
  });
}

/** The query string of the defined values, in a stable order; '' when there are none. */
export function buildQuery(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (query === undefined) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) search.append(key, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
