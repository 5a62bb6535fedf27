/**
 * The sandbox's HTTP vocabulary: the error bodies of reference section 7, the request and
 * reply shapes every handler sees, and the router (404/405 handling).
 *
 * A handler returns a Reply or throws an ApiError; anything else it throws becomes the
 * plain-text `Internal Server Error` of reference section 7, and the process stays up.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from './state.ts';

/** An answer other than success. `body` is JSON, or a string sent as text/plain. */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    // The body is not serialised here: it may echo hostile input (a validation list's `input`).
    super(typeof body === 'string' ? body : `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

/** Reference 7, first body shape: `{detail: "<string>"}`. */
export function detailError(status: number, detail: string, headers?: Record<string, string>): ApiError {
  return new ApiError(status, { detail }, headers);
}

/** Reference 7, second body shape (MED claims): `{detail: {reason, message, ...extra}}`. */
export function reasonError(status: number, reason: string, message: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError(status, { detail: { reason, message, ...extra } });
}

/** One entry of the 422 validation list (reference 7, third body shape). */
export interface ValidationItem {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** Reference 7, third body shape: 422 `{detail: [ValidationItem...]}`. */
export function validationError(items: ValidationItem[]): ApiError {
  return new ApiError(422, { detail: items });
}

/** Reference 7: "An unexpected server failure can return a plain-text body". */
export const INTERNAL_SERVER_ERROR = 'Internal Server Error';

export interface SandboxRequest {
  method: string;
  /** The path without the query string, percent-decoding left to the router's params. */
  path: string;
  /** Path parameters named in the route pattern, percent-decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown;
  headers: IncomingHttpHeaders;
  /** The bearer token's principal, or null when the token is absent or not valid. */
  principal: Principal | null;
  /** Address of the caller (for per-IP rate limits, reference section 8). */
  ip: string;
  /** The route pattern that matched, e.g. '/v2/payout_meds/:med_case_id'. */
  route: string;
}

export interface Reply {
  status: number;
  /** JSON body; a string is sent as text/plain; undefined sends no body. */
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (req: SandboxRequest) => Reply | Promise<Reply>;

export type RouteMatch =
  | { kind: 'found'; handler: Handler; params: Record<string, string>; pattern: string }
  | { kind: 'not_found' }
  | { kind: 'method_not_allowed'; allow: string[] };

interface Route {
  method: string;
  pattern: string;
  segments: string[];
  handler: Handler;
}

/**
 * Routes by method and pattern. Pattern segments starting with ':' capture one path segment.
 * A path that matches no pattern answers 404 `{"detail":"Not Found"}`; a path that matches
 * with another method answers 405 `{"detail":"Method Not Allowed"}` with an Allow header.
 * Static routes are tried first, then parameterised ones with the most static segments first;
 * any route matching both path and method wins (as in Starlette), whatever the order.
 */
export class Router {
  readonly #exact = new Map<string, Map<string, Route>>();
  readonly #parameterised: Route[] = [];

  add(method: string, pattern: string, handler: Handler): void {
    const upper = method.toUpperCase();
    if (!pattern.startsWith('/')) throw new Error(`route pattern must start with '/': ${pattern}`);
    const segments = pattern.split('/').slice(1);
    const route: Route = { method: upper, pattern, segments, handler };
    if (this.routes().some((r) => r.method === upper && r.pattern === pattern)) {
      throw new Error(`route registered twice: ${upper} ${pattern}`);
    }
    if (segments.some((s) => s.startsWith(':'))) {
      this.#parameterised.push(route);
      // More static segments first, so '/v1/settlements/pending-charges' beats '/v1/settlements/:settlement_id'.
      this.#parameterised.sort((a, b) => staticCount(b) - staticCount(a));
    } else {
      let byMethod = this.#exact.get(pattern);
      if (byMethod === undefined) this.#exact.set(pattern, (byMethod = new Map()));
      byMethod.set(upper, route);
    }
  }

  /** Every registered route, for fault injection and the README. */
  routes(): { method: string; pattern: string }[] {
    const all: Route[] = [];
    for (const byMethod of this.#exact.values()) all.push(...byMethod.values());
    all.push(...this.#parameterised);
    return all.map((r) => ({ method: r.method, pattern: r.pattern }));
  }

  match(method: string, path: string): RouteMatch {
    const upper = method.toUpperCase();
    const allow = new Set<string>();
    const exact = this.#exact.get(path);
    if (exact !== undefined) {
      const route = exact.get(upper);
      if (route !== undefined) return { kind: 'found', handler: route.handler, params: {}, pattern: route.pattern };
      for (const m of exact.keys()) allow.add(m);
    }
    const segments = path.split('/').slice(1);
    for (const route of this.#parameterised) {
      const params = matchSegments(route.segments, segments);
      if (params === null) continue;
      if (route.method === upper) return { kind: 'found', handler: route.handler, params, pattern: route.pattern };
      allow.add(route.method);
    }
    if (allow.size > 0) return { kind: 'method_not_allowed', allow: [...allow].sort() };
    return { kind: 'not_found' };
  }
}

function staticCount(route: Route): number {
  return route.segments.filter((s) => !s.startsWith(':')).length;
}

function matchSegments(pattern: string[], path: string[]): Record<string, string> | null {
  if (pattern.length !== path.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const s = path[i] as string;
    if (p.startsWith(':')) {
      if (s === '') return null;
      let decoded: string;
      try {
        decoded = decodeURIComponent(s);
      } catch {
        return null;
      }
      params[p.slice(1)] = decoded;
    } else if (p !== s) {
      return null;
    }
  }
  return params;
}
