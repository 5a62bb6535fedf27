import { CoreError } from '../errors.ts';

/**
 * Who may do what: the one rule every bridge call goes through (bridge/handler.ts asks it,
 * the role-table test asks it). A role may do what the roles below it may.
 */
export const ROLES = ['cashier', 'supervisor', 'manager'] as const;
export type Role = (typeof ROLES)[number];

/** A method's minimum: a role, or `anyone` for what a till needs before anyone signs in. */
export type Access = 'anyone' | Role;
export const ACCESS: readonly Access[] = ['anyone', ...ROLES];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function mayUse(role: Role | null, access: Access): boolean {
  if (access === 'anyone') return true;
  return role !== null && ROLES.indexOf(role) >= ROLES.indexOf(access);
}

/** "a supervisor or a manager": every role that reaches `access`, in words. */
export function whoMay(access: Role): string {
  const names = ROLES.slice(ROLES.indexOf(access)).map((r) => `a ${r}`);
  return names.length === 1 ? (names[0] as string) : `${names.slice(0, -1).join(', ')} or ${names.at(-1) as string}`;
}

/**
 * The refusal of a call: with no one signed in, `signed_out`; otherwise `forbidden`, whose
 * sentence names who may (the renderer words it from `params.role`).
 */
export function refusal(access: Role, action: string, signedIn: boolean): CoreError {
  if (!signedIn) return new CoreError('signed_out', 'Sign in first.', { role: access });
  return new CoreError('forbidden', `Only ${whoMay(access)} can ${action}.`, { role: access });
}
