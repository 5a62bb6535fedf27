/**
 * Bearer tokens, scopes and roles: reference section 5 and contract section 1.
 *
 * - missing, invalid or expired token: 401 `Could not validate credentials` with
 *   `WWW-Authenticate: Bearer` (contract 1 fixes the status the reference leaves open);
 * - valid token without the required scope: 401 `Token Profile Not Authorized for this Endpoint`;
 * - valid token whose user lacks the role: 403 `User role not authorized for this endpoint`.
 * The scope is checked before the role (reference 5 rule 2: "Without the scope the response
 * is 401; without the role it is 403").
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, detailError } from './http.ts';
import type { SandboxRequest } from './http.ts';
import type { Principal, Role, Scope, TokenRecord } from './state.ts';

export type { Principal, Role, Scope } from './state.ts';

export const DETAIL_BAD_CREDENTIALS = 'Could not validate credentials';
export const DETAIL_SCOPE = 'Token Profile Not Authorized for this Endpoint';
export const DETAIL_ROLE = 'User role not authorized for this endpoint';

export function credentialsError(): ApiError {
  return detailError(401, DETAIL_BAD_CREDENTIALS, { 'WWW-Authenticate': 'Bearer' });
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or null. */
export function bearerToken(headers: IncomingHttpHeaders): string | null {
  const value = headers.authorization;
  if (typeof value !== 'string') return null;
  const m = /^Bearer[ ]+([^\s]+)[ ]*$/i.exec(value);
  return m === null ? null : (m[1] ?? null);
}

/** The principal of a valid, unexpired token; null otherwise. Never throws. */
export function tryAuthenticate(headers: IncomingHttpHeaders, tokens: Readonly<Record<string, TokenRecord>>, nowMs: number): Principal | null {
  const token = bearerToken(headers);
  if (token === null || !Object.hasOwn(tokens, token)) return null;
  const record = tokens[token] as TokenRecord;
  if (record.expires_at !== null && record.expires_at <= nowMs) return null;
  return { token, merchantId: record.merchant_id, userId: record.user_id, scopes: [...record.scopes], role: record.role };
}

/** Throws the 401 of an invalid token, or returns its principal. */
export function authenticate(headers: IncomingHttpHeaders, tokens: Readonly<Record<string, TokenRecord>>, nowMs: number): Principal {
  const principal = tryAuthenticate(headers, tokens, nowMs);
  if (principal === null) throw credentialsError();
  return principal;
}

/** Reference 5 rule 3: a valid token without any of these scopes gets 401. */
export function requireScope(principal: Principal, anyOf: readonly Scope[]): void {
  if (!anyOf.some((s) => principal.scopes.includes(s))) throw detailError(401, DETAIL_SCOPE);
}

/** Reference 5 rule 3: a valid token whose user has none of these roles gets 403. */
export function requireRole(principal: Principal, anyOf: readonly Role[]): void {
  if (!anyOf.includes(principal.role)) throw detailError(403, DETAIL_ROLE);
}

export interface Access {
  scopes: readonly Scope[];
  /** Omit for "any role". */
  roles?: readonly Role[];
}

/** The access rules of contract section 1, one per family of endpoints. */
export const ACCESS = {
  /** Stores, checkouts, configs, printed QR creation and listing. */
  administration: { scopes: ['pay_in'], roles: ['manager'] },
  /** create_dynamic_pix, Tx Status, refunds, settlement reads. */
  payIn: { scopes: ['pay_in'] },
  /** Wallets list. */
  wallets: { scopes: ['pay_in', 'pay_out'] },
  /** Pay-outs and MED claims. */
  payOut: { scopes: ['pay_out'], roles: ['manager', 'supervisor'] },
} as const satisfies Record<string, Access>;

/**
 * The one call a handler makes first: the request's principal, after the token (401),
 * scope (401) and role (403) checks, in that order.
 */
export function guard(req: Pick<SandboxRequest, 'principal'>, access: Access): Principal {
  const principal = req.principal;
  if (principal === null) throw credentialsError();
  requireScope(principal, access.scopes);
  if (access.roles !== undefined) requireRole(principal, access.roles);
  return principal;
}
