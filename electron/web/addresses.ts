import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';

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

export function shellAddresses(host: string, port: number, secure: boolean, names: NetworkNames = localNetworkNames()): ShellAddresses {
  const scheme = secure ? 'https' : 'http';
  const defaultPort = secure ? 443 : 80;
  const listed = shellNames(host, names);
  const bracket = (name: string) => (isIP(name) === 6 ? `[${name}]` : name);
  // Browsers leave a scheme's default port out of Host and Origin; other clients may not.
  const hosts = listed.flatMap((name) => (port === defaultPort ? [`${bracket(name)}:${port}`, bracket(name)] : [`${bracket(name)}:${port}`]));
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
