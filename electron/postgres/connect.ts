/**
 * The one pool of PostgreSQL connections the server core uses. postgres (porsager) keeps
 * the pool and reconnects by itself; this module fixes what every connection must carry
 * (a statement timeout, the app's name in pg_stat_activity, no NOTICE chatter on stdout)
 * and turns a server that cannot be reached into a sentence that names the URL, with the
 * password masked, and the setting to check.
 */
import postgres from 'postgres';

export type Sql = postgres.Sql;

/** What pg_stat_activity shows for the core's connections, so an operator can tell them apart. */
export const APPLICATION_NAME = 'pix-cashier';
/** A statement that runs longer is cancelled by the server: a stuck query must not hold a till. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;
export const DEFAULT_POOL_MAX = 10;
/** How long a first connection may take before the server counts as unreachable. */
export const DEFAULT_CONNECT_TIMEOUT_S = 10;

export interface PoolOptions {
  /** A standard postgres:// (or postgresql://) URL, several hosts allowed as libpq takes them. */
  url: string;
  max?: number;
  statementTimeoutMs?: number;
  connectTimeoutS?: number;
  /** Where PGPASSWORD is read when the URL carries no password: process.env in the app. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The server could not be reached, or refused the connection; `message` is the sentence. */
export class PostgresUnreachableError extends Error {
  override readonly name = 'PostgresUnreachableError';
}

const SCHEME = /^postgres(?:ql)?:\/\//i;

/**
 * The URL as it may appear in a message or a log: the password, whether in the userinfo or
 * a `password=` parameter, replaced by ***. Works on multi-host URLs, which `new URL` refuses.
 * The userinfo ends at the LAST @, so a password with an unencoded / ? # or @ is still
 * masked whole (a rare @ further on masks more than needed, never less).
 */
export function maskedUrl(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url);
  const start = scheme ? scheme[0].length : 0;
  const rest = url.slice(start);
  const at = rest.lastIndexOf('@');
  const colon = rest.indexOf(':');
  const userinfoMasked = at !== -1 && colon !== -1 && colon < at ? `${rest.slice(0, colon)}:***${rest.slice(at)}` : rest;
  return url.slice(0, start) + userinfoMasked.replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/** Network failures of the first connection: the server is not there (or not listening). */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED']);

/** The sentence for a first connection that failed; a server that answered and refused gets its own. */
export function connectProblem(url: string, err: unknown): string {
  const where = maskedUrl(url);
  const code = typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
  const reason = err instanceof Error ? err.message : String(err);
  if (err instanceof postgres.PostgresError && !UNREACHABLE_CODES.has(code)) {
    return `PostgreSQL at ${where} refused the connection: ${reason}. Check POS_DATABASE_URL.`;
  }
  return `Could not reach PostgreSQL at ${where}: ${reason}. Check POS_DATABASE_URL.`;
}

/** What every connection of the pool carries; the password from the URL, else PGPASSWORD. */
export function poolSettings(options: PoolOptions): postgres.Options<Record<string, postgres.PostgresType>> {
  const env = options.env ?? process.env;
  return {
    max: options.max ?? DEFAULT_POOL_MAX,
    connect_timeout: options.connectTimeoutS ?? DEFAULT_CONNECT_TIMEOUT_S,
    // The URL's own password wins; else PGPASSWORD, as psql does. Never another source.
    password: passwordOf(options.url) ?? env.PGPASSWORD ?? '',
    onnotice: () => {},
    connection: {
      application_name: APPLICATION_NAME,
      statement_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    },
  };
}

/**
 * Opens the pool and makes its first connection, so a wrong URL or a server that is down is
 * said at start, not at the first sale. Throws PostgresUnreachableError with the sentence.
 */
export async function openPool(options: PoolOptions): Promise<Sql> {
  const { url } = options;
  if (!SCHEME.test(url)) throw new PostgresUnreachableError(`POS_DATABASE_URL must be a postgres:// URL, not ${maskedUrl(url)}.`);
  if (/[?&]password=/i.test(url)) {
    // libpq would take it, but porsager sends unknown parameters to the server as settings.
    throw new PostgresUnreachableError(`POS_DATABASE_URL carries the password as a parameter (${maskedUrl(url)}): put it in the URL's user part or in PGPASSWORD.`);
  }
  const sql = postgres(url, poolSettings(options));
  try {
    await sql`select 1`;
  } catch (err) {
    await sql.end({ timeout: 0 }).catch(() => {});
    throw new PostgresUnreachableError(connectProblem(url, err), { cause: err });
  }
  return sql;
}

/**
 * The password in the URL's userinfo, decoded, read as the URL standard (and so porsager)
 * reads it: the authority ends at the first / ? or #. Undefined when there is none.
 */
function passwordOf(url: string): string | undefined {
  const authority = url.replace(SCHEME, '').split(/[/?#]/)[0] ?? '';
  const at = authority.lastIndexOf('@');
  const colon = authority.indexOf(':');
  if (at === -1 || colon === -1 || colon > at) return undefined;
  const raw = authority.slice(colon + 1, at);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** A failure that says nothing about a statement's outcome: the connection went away. */
const CONNECTION_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004']);

export function codeOf(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
}

export function isConnectionLoss(err: unknown): boolean {
  return CONNECTION_CODES.has(codeOf(err));
}
