import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { parseHostPort } from '../core/config.ts';

/**
 * Which names the browser shell answers to. The Host and Origin checks (the DNS-rebinding
 * guard) and the certificate's subjectAltName are both built from this one list, so a name
 * a till may open is also a name the certificate covers.
 */
export interface NetworkNames {
  /** Every address of this computer's interfaces. */
  addresses: readonly string[];
  hostname: string;
}

export function localNetworkNames(): NetworkNames {
  const addresses = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    // A link-local IPv6 address needs a zone id, which no browser takes in an address.
    .filter((a) => !(a.family === 'IPv6' && (a.scopeid ?? 0) !== 0))
    .map((a) => a.address);
  return { addresses, hostname: hostname() };
}

/** The host as the URL parser spells it (`127.1` → `127.0.0.1`, `[0::1]` → `::1`), or null. */
function canonical(host: string): string | null {
  const bare = host.trim().replace(/^\[(.*)\]$/, '$1');
  if (bare === '') return null;
  try {
    return new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}/`).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return null;
  }
}

/** 127.0.0.0/8, ::1 and localhost: the addresses no other computer can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = canonical(host);
  return h === 'localhost' || h === '::1' || (h !== null && isIP(h) === 4 && h.startsWith('127.'));
}

/** 0.0.0.0 or ::, which listen on every interface. */
export function isWildcardHost(host: string): boolean {
  const h = canonical(host);
  return h === '0.0.0.0' || h === '::';
}

const DNS_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * The names (no port) a shell bound to `host` answers to. Bound to every interface: each
 * interface address, this computer's name with and without `.local` (mDNS), and the loopback
 * names; bound to one address: that one, plus the loopback names only when it is loopback
 * (a page on 192.168.1.5 has no business calling itself localhost).
 */
export function shellNames(host: string, names: NetworkNames = localNetworkNames()): string[] {
  const out: string[] = [];
  const add = (name: string) => {
    const h = canonical(name);
    if (h !== null && (isIP(h) !== 0 || DNS_NAME.test(h)) && !out.includes(h)) out.push(h);
  };
  if (isWildcardHost(host)) {
    names.addresses.forEach(add);
    const machine = names.hostname.toLowerCase().replace(/\.local\.?$/, '');
    add(machine);
    add(`${machine}.local`);
    add('localhost');
    add('127.0.0.1');
  } else {
    add(host);
    if (isLoopbackHost(host)) {
      add('localhost');
      add('127.0.0.1');
    }
  }
  return out;
}

export interface ShellAddresses {
  /** The address to print and open: the bound one, or for every interface the first one another computer can reach. */
  origin: string;
  /** Accepted Host header values. */
  hosts: string[];
  /** Accepted Origin header values: the hosts with the shell's scheme. */
  origins: string[];
  /** Where another computer opens the shell (for pairing): `origin` first, then every other address it answers on off loopback. */
  entrances: string[];
}

/**
 * The names the merchant declared beside the bound ones (POS_ADVERTISE_ADDRESS, POS_WEB_NAMES),
 * each `name` or `name:port`, without their ports: what the certificate must cover too.
 * Anything that is not one is left out, never accepted as it is.
 */
export function declaredNames(declared: readonly string[]): string[] {
  const out: string[] = [];
  for (const item of declared) {
    const at = parseHostPort(item, { portOptional: true });
    const h = at === null ? null : canonical(at.host);
    if (h !== null && !out.includes(h)) out.push(h);
  }
  return out;
}

/**
 * Accepted Host values for the declared names: a till relayed here by another core (or sent by
 * a balancer) still names that core or balancer. A name without a port is at the shell's own.
 */
function declaredHosts(declared: readonly string[], port: number, defaultPort: number): string[] {
  const out: string[] = [];
  for (const item of declared) {
    const at = parseHostPort(item, { portOptional: true });
    const h = at === null ? null : canonical(at.host);
    if (at === null || h === null) continue;
    const p = at.port ?? port;
    const name = isIP(h) === 6 ? `[${h}]` : h;
    for (const value of p === defaultPort ? [`${name}:${p}`, name] : [`${name}:${p}`]) if (!out.includes(value)) out.push(value);
  }
  return out;
}

/**
 * `declared`: names the merchant says this shell also answers to (its advertised address, the
 * other cores', a balancer's), each `name` or `name:port`; no other Host is ever accepted.
 */
export function shellAddresses(host: string, port: number, secure: boolean, names: NetworkNames = localNetworkNames(), declared: readonly string[] = []): ShellAddresses {
  const scheme = secure ? 'https' : 'http';
  const defaultPort = secure ? 443 : 80;
  const listed = shellNames(host, names);
  const bracket = (name: string) => (isIP(name) === 6 ? `[${name}]` : name);
  // Browsers leave a scheme's default port out of Host and Origin; other clients may not.
  const bound = listed.flatMap((name) => (port === defaultPort ? [`${bracket(name)}:${port}`, bracket(name)] : [`${bracket(name)}:${port}`]));
  const hosts = [...bound, ...declaredHosts(declared, port, defaultPort).filter((h) => !bound.includes(h))];
  const main = isWildcardHost(host)
    ? (listed.find((n) => isIP(n) === 4 && !isLoopbackHost(n)) ?? listed.find((n) => isIP(n) !== 0 && !isLoopbackHost(n)) ?? '127.0.0.1')
    : (canonical(host) ?? host);
  const at = (name: string) => `${scheme}://${bracket(name)}${port === defaultPort ? '' : `:${port}`}`;
  const others = isLoopbackHost(main) ? [] : listed.filter((n) => n !== main && !isLoopbackHost(n));
  return {
    origin: at(main),
    hosts,
    origins: hosts.map((h) => `${scheme}://${h}`),
    entrances: [main, ...others].map(at),
  };
}
