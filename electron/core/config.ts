import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { secretBytes } from '../shared/standard-webhooks.ts';

/**
 * The one typed place the core's configuration comes from: command-line flags first,
 * then environment variables, then defaults. Both shells and every test build a
 * CoreConfig through loadConfig, so a knob means the same thing everywhere.
 */

import { isLang, LANGS, type Lang } from '../shared/lang.ts';

export { LANGS, isLang, type Lang };

export type ServiceConfig =
  /** The embedded sandbox (default): port 0 picks a free loopback port. */
  | { kind: 'sandbox'; port: number }
  /**
   * A real payment service. The token is a secret: never logged; null here means "the one
   * saved in the secret store" (encrypted at rest), read when the core starts.
   */
  | { kind: 'remote'; baseUrl: string; token: string | null };

export interface CoreConfig {
  dataDir: string;
  lang: Lang;
  service: ServiceConfig;
  /** Browser shell: where it listens and the token that guards its bridge (null = random per run). */
  web: {
    host: string;
    port: number;
    token: string | null;
    /** The merchant's own certificate and key (POS_TLS_CERT, POS_TLS_KEY); null = one generated in the data dir when needed. */
    tls: { certFile: string; keyFile: string } | null;
    /**
     * Where the other cores on the same database reach this one's browser shell (host:port,
     * POS_ADVERTISE_ADDRESS): published while it is the active core, so a standby relays its
     * tills here. Null: none (bound to every interface or to any free port, and not given).
     */
    advertise: string | null;
    /**
     * More names the shell answers to (POS_WEB_NAMES), each `name` (at the shell's own port)
     * or `name:port`: the other cores' and a balancer's addresses, which a till relayed here
     * still sends as its Host and Origin.
     */
    names: string[];
  };
  /** Webhook receiver of the core. */
  webhook: { host: string; port: number; secret: string | null };
  /** The checkout this terminal rings sales up on. */
  terminal: { storeId: number; checkoutId: number };
  /** Idle minutes of real time before the till signs its operator out (POS_LOCK_MINUTES; 0 = never). */
  lockMinutes: number;
  /**
   * PostgreSQL instead of the data dir's journal (POS_DATABASE_URL, --database-url): a
   * postgres:// URL without a password (that comes from PGPASSWORD only); null = the files.
   */
  databaseUrl: string | null;
  /** Where the health address listens (POS_HEALTH_PORT, on the browser shell's host); absent = none. */
  healthPort?: number;
  /** Which settings were given at start (flag or variable): those win over saved settings. */
  explicit: { lang: boolean; terminal: boolean };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

const FLAGS = {
  'data-dir': { type: 'string' },
  lang: { type: 'string' },
  'service-url': { type: 'string' },
  'web-host': { type: 'string' },
  'web-port': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'sandbox-port': { type: 'string' },
  'webhook-host': { type: 'string' },
  'webhook-port': { type: 'string' },
  'store-id': { type: 'string' },
  'checkout-id': { type: 'string' },
  'database-url': { type: 'string' },
  'health-port': { type: 'string' },
  'advertise-address': { type: 'string' },
  'web-names': { type: 'string' },
} as const;

export const CONFIG_HELP = `Options (flag, or environment variable):
  --data-dir DIR        POS_DATA_DIR        where the journal and settings live (default ~/.pix-cashier)
  --lang LANG           POS_LANG            pt-BR (default), en or es
  --service-url URL     POS_SERVICE_URL     a real payment service (with POS_SERVICE_TOKEN); default: the embedded sandbox
                        POS_SERVICE_TOKEN   the service's bearer token (environment only, never a flag)
  --web-host HOST       POS_WEB_HOST        browser shell address (default 127.0.0.1)
  --web-port PORT       POS_WEB_PORT        browser shell port (default 5180; 0 = any free port)
  --tls-cert FILE       POS_TLS_CERT        browser shell's certificate (PEM) for HTTPS; off loopback, without it one is generated in the data dir
  --tls-key FILE        POS_TLS_KEY         that certificate's private key (PEM); give both or neither
                        POS_WEB_TOKEN       fixes the browser shell's access token (default: random per run)
  --sandbox-port PORT   POS_SANDBOX_PORT    embedded sandbox port (default 0 = any free port)
  --webhook-host HOST   POS_WEBHOOK_HOST    webhook receiver address (default 127.0.0.1)
  --webhook-port PORT   POS_WEBHOOK_PORT    webhook receiver port (default 0 = any free port)
                        POS_WEBHOOK_SECRET  webhook signing secret (default: the saved one; the embedded sandbox's own without a service)
  --store-id N          POS_STORE_ID        this terminal's store (default 1)
  --checkout-id N       POS_CHECKOUT_ID     this terminal's checkout (default 1)
                        POS_LOCK_MINUTES    idle minutes before the till signs its operator out (default 10; 0 = never)
  --database-url URL    POS_DATABASE_URL    keep the journal in PostgreSQL (postgres://user@host:5432/db; password in PGPASSWORD); default: files in the data dir
  --health-port PORT    POS_HEALTH_PORT     answer GET /health on the browser shell's address for a load balancer: 200 on the active core, 503 on a standby (default: off)
  --advertise-address HOST:PORT  POS_ADVERTISE_ADDRESS  where the other cores on the same database reach this one's browser shell: a standby relays its tills
                        to the active core's (default: the web host and port, unless the host is 0.0.0.0 or :: or the port 0)
  --web-names LIST      POS_WEB_NAMES       more names the browser shell answers to, comma-separated, each NAME or NAME:PORT: every other core's address
                        and the load balancer's (a till relayed from another core sends that core's name), e.g. 10.0.0.12:5180,pos.example:443`;

function pick(flag: string | undefined, env: string | undefined): string | undefined {
  const v = flag ?? env;
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function port(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`${name} must be a port number from 0 to 65535, not "${raw}".`);
  }
  return Number(raw);
}

function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw new ConfigError(`${name} must be a whole number of 1 or more, not "${raw}".`);
  return Number(raw);
}

/** The host part of an address: a DNS name, an IPv4 address or a bracketed IPv6 one, as written. */
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/**
 * `name:port`, `192.0.2.1:port` or `[2001:db8::1]:port` (the port optional when `portOptional`):
 * the host as written (IPv6 without its brackets) and the port; null for anything else.
 */
export function parseHostPort(text: string, options: { portOptional?: boolean } = {}): { host: string; port: number | null } | null {
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/i.exec(text.trim());
  if (!m) return null;
  const host = (m[1] ?? m[2] ?? '').toLowerCase();
  if (m[1] !== undefined ? isIP(host) !== 6 : isIP(host) !== 4 && (!DNS_NAME.test(host) || /^[\d.]+$/.test(host))) return null;
  if (m[3] === undefined) return options.portOptional ? { host, port: null } : null;
  const port = Number(m[3]);
  return port >= 1 && port <= 65535 ? { host, port } : null;
}

/** host:port as a URL's authority spells it (an IPv6 address in brackets). */
export function joinHostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

function advertiseAddress(raw: string | undefined, webHost: string, webPort: number): string | null {
  if (raw !== undefined) {
    const at = parseHostPort(raw);
    if (at === null || at.port === null) throw new ConfigError(`POS_ADVERTISE_ADDRESS must be a host and port the other cores can reach, such as 10.0.0.11:5180 or [2001:db8::11]:5180, not "${raw}".`);
    return joinHostPort(at.host, at.port);
  }
  const own = parseHostPort(isIP(webHost) === 6 ? `[${webHost}]` : webHost, { portOptional: true });
  // Every interface, or a port picked at start: no one address the other cores could be told.
  if (own === null || own.host === '0.0.0.0' || own.host === '::' || webPort === 0) return null;
  return joinHostPort(own.host, webPort);
}

function webNames(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return raw.split(',').map((item) => {
    const at = parseHostPort(item, { portOptional: true });
    if (at === null) {
      throw new ConfigError(`POS_WEB_NAMES must be names or addresses separated by commas, each with an optional :port (such as 10.0.0.12:5180,pos.example:443), not "${item.trim()}".`);
    }
    return at.port === null ? (isIP(at.host) === 6 ? `[${at.host}]` : at.host) : joinHostPort(at.host, at.port);
  });
}

function host(name: string, raw: string | undefined): string {
  const v = raw ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(v)) throw new ConfigError(`${name} must be a host name or IP address, not "${v}".`);
  return v;
}

/** Builds the configuration; throws ConfigError with a sentence a person can act on. */
export function loadConfig(env: Env = process.env, argv: readonly string[] = []): CoreConfig {
  let values: Partial<Record<keyof typeof FLAGS, string>>;
  try {
    values = parseArgs({ args: [...argv], options: FLAGS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new ConfigError(`${(err as Error).message}\n${CONFIG_HELP}`);
  }

  const lang = pick(values.lang, env.POS_LANG) ?? 'pt-BR';
  if (!isLang(lang)) throw new ConfigError(`POS_LANG must be one of ${LANGS.join(', ')}, not "${lang}".`);

  const dataDir = resolve(pick(values['data-dir'], env.POS_DATA_DIR) ?? join(homedir(), '.pix-cashier'));

  const serviceUrl = pick(values['service-url'], env.POS_SERVICE_URL);
  const serviceToken = pick(undefined, env.POS_SERVICE_TOKEN);
  let service: ServiceConfig;
  if (serviceUrl === undefined) {
    if (serviceToken !== undefined) {
      throw new ConfigError('POS_SERVICE_TOKEN is set but POS_SERVICE_URL is not: set both to use a real service, or neither for the sandbox.');
    }
    service = { kind: 'sandbox', port: port('POS_SANDBOX_PORT', pick(values['sandbox-port'], env.POS_SANDBOX_PORT), 0) };
  } else {
    let url: URL;
    try {
      url = new URL(serviceUrl);
    } catch {
      throw new ConfigError(`POS_SERVICE_URL must be an http(s) address, not "${serviceUrl}".`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new ConfigError(`POS_SERVICE_URL must be an http(s) address, not "${serviceUrl}".`);
    }
    // Credentials in the address would be logged and shown; the token has its own variable.
    if (url.username !== '' || url.password !== '') {
      throw new ConfigError('POS_SERVICE_URL must not contain a user name or password: give the token in POS_SERVICE_TOKEN.');
    }
    // The bearer token must not cross a network in clear text; plain http only on this machine.
    if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
      throw new ConfigError(`POS_SERVICE_URL must use https for a service on another machine (${url.hostname}); plain http is only for 127.0.0.1 or localhost.`);
    }
    service = { kind: 'remote', baseUrl: url.toString().replace(/\/$/, ''), token: serviceToken ?? null };
  }

  const webhookSecret = pick(undefined, env.POS_WEBHOOK_SECRET) ?? null;
  // A malformed secret would refuse every delivery at run time: refuse it at start instead.
  if (webhookSecret !== null && secretBytes(webhookSecret) === null) {
    throw new ConfigError('POS_WEBHOOK_SECRET must be "whsec_" followed by base64, as the payment service gives it.');
  }

  const webToken = pick(undefined, env.POS_WEB_TOKEN) ?? null;
  if (webToken !== null && !/^[A-Za-z0-9_-]{16,128}$/.test(webToken)) {
    throw new ConfigError('POS_WEB_TOKEN must be 16 to 128 letters, digits, "-" or "_".');
  }

  const tlsCert = pick(values['tls-cert'], env.POS_TLS_CERT);
  const tlsKey = pick(values['tls-key'], env.POS_TLS_KEY);
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    throw new ConfigError(`${tlsCert === undefined ? 'POS_TLS_KEY' : 'POS_TLS_CERT'} is set but ${tlsCert === undefined ? 'POS_TLS_CERT' : 'POS_TLS_KEY'} is not: give the certificate and its private key together, or neither to use a generated certificate.`);
  }

  const databaseUrl = databaseUrlOf(pick(values['database-url'], env.POS_DATABASE_URL));
  const healthRaw = pick(values['health-port'], env.POS_HEALTH_PORT);
  const webHost = host('POS_WEB_HOST', pick(values['web-host'], env.POS_WEB_HOST));
  const webPort = port('POS_WEB_PORT', pick(values['web-port'], env.POS_WEB_PORT), 5180);

  return {
    ...(healthRaw === undefined ? {} : { healthPort: port('POS_HEALTH_PORT', healthRaw, 0) }),
    dataDir,
    lang,
    service,
    databaseUrl,
    web: {
      host: webHost,
      port: webPort,
      token: webToken,
      tls: tlsCert === undefined || tlsKey === undefined ? null : { certFile: resolve(tlsCert), keyFile: resolve(tlsKey) },
      advertise: advertiseAddress(pick(values['advertise-address'], env.POS_ADVERTISE_ADDRESS), webHost, webPort),
      names: webNames(pick(values['web-names'], env.POS_WEB_NAMES)),
    },
    webhook: {
      host: host('POS_WEBHOOK_HOST', pick(values['webhook-host'], env.POS_WEBHOOK_HOST)),
      port: port('POS_WEBHOOK_PORT', pick(values['webhook-port'], env.POS_WEBHOOK_PORT), 0),
      secret: webhookSecret,
    },
    terminal: {
      storeId: positiveInt('POS_STORE_ID', pick(values['store-id'], env.POS_STORE_ID), 1),
      checkoutId: positiveInt('POS_CHECKOUT_ID', pick(values['checkout-id'], env.POS_CHECKOUT_ID), 1),
    },
    lockMinutes: lockMinutes(env.POS_LOCK_MINUTES),
    explicit: {
      lang: pick(values.lang, env.POS_LANG) !== undefined,
      terminal: pick(values['store-id'], env.POS_STORE_ID) !== undefined || pick(values['checkout-id'], env.POS_CHECKOUT_ID) !== undefined,
    },
  };
}

function lockMinutes(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 10;
  if (!/^\d{1,4}$/.test(raw.trim()) || Number(raw) > 1440) throw new ConfigError(`POS_LOCK_MINUTES must be a whole number of minutes from 0 (never lock) to 1440, not "${raw}".`);
  return Number(raw);
}

/**
 * A libpq-style URL, one host or several (host1:5432,host2:5432): checked by its shape, since
 * `new URL` refuses several hosts. A password in it would be logged and shown: refused.
 */
function databaseUrlOf(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const m = /^postgres(?:ql)?:\/\/(?:([^@/?#]*)@)?[^/?#@]+(?:\/[^?#]*)?(?:\?[^#]*)?$/i.exec(raw);
  if (!m) throw new ConfigError('POS_DATABASE_URL must be a postgres:// address such as postgres://cashier@db.example:5432/pix, not what was given.');
  if ((m[1] ?? '').includes(':') || /[?&]password=/i.test(raw)) {
    throw new ConfigError('POS_DATABASE_URL must not contain a password: give it in PGPASSWORD.');
  }
  return raw;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Electron's argv carries its own switches (Chromium's, --inspect...) beside ours: keep only
 * the flags loadConfig knows, with their values (`--lang en` or `--lang=en`).
 */
export function knownFlags(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const m = /^--([a-z-]+)(=.*)?$/.exec(arg);
    if (!m?.[1] || !Object.hasOwn(FLAGS, m[1])) continue;
    if (m[2] !== undefined) out.push(arg);
    else if (i + 1 < argv.length) out.push(arg, argv[++i] ?? '');
  }
  return out;
}

/** What may be shown or logged about the configuration: never the token. */
export function describeConfig(c: CoreConfig): Record<string, unknown> {
  return {
    dataDir: c.dataDir,
    lang: c.lang,
    service: c.service.kind === 'remote' ? { kind: 'remote', baseUrl: c.service.baseUrl } : c.service,
    web: { host: c.web.host, port: c.web.port, fixedToken: c.web.token !== null, tls: c.web.tls, advertise: c.web.advertise, names: c.web.names },
    webhook: { host: c.webhook.host, port: c.webhook.port, secretSet: c.webhook.secret !== null },
    terminal: c.terminal,
    database: c.databaseUrl,
    healthPort: c.healthPort ?? null,
  };
}
