import type { CoreConfig } from '../core/config.ts';
import type { Core } from '../core/core.ts';
import { declaredNames, isLoopbackHost, shellNames } from './addresses.ts';
import { startWebShell, type WebShell } from './server.ts';
import { certificateFingerprint, loadTlsIdentity, STORE_CA_PATH, type TlsIdentity } from './tls.ts';

/**
 * The store computer's door for its other tills and displays, as both entry points open it
 * (`npm run start:web` and the Electron app in "runs the store" mode): the browser shell on
 * the configured address, HTTPS/WSS off loopback (issue 9) with the merchant's certificate
 * or the one kept in the data dir.
 */
export async function startStoreShell(core: Core, config: CoreConfig, rendererDir: string): Promise<{ shell: WebShell; tls: TlsIdentity | null }> {
  let tls: TlsIdentity | null = null;
  // Its advertised address and the other names the merchant declared: a till relayed here by
  // another core, or sent by a balancer, names those (the certificate must cover them too).
  const names = [...(config.web.advertise === null ? [] : [config.web.advertise]), ...config.web.names];
  if (config.web.tls !== null || !isLoopbackHost(config.web.host)) {
    const hosts = [...new Set([...shellNames(config.web.host), ...declaredNames(names)])];
    tls = await loadTlsIdentity({ dataDir: config.dataDir, certFile: config.web.tls?.certFile, keyFile: config.web.tls?.keyFile, hosts, log: core.log });
  }
  const shell = await startWebShell({ core, rendererDir, host: config.web.host, port: config.web.port, token: config.web.token, names, ...(tls === null ? {} : { tls }) });
  return { shell, tls };
}

/** What the person starting the store reads about its certificate, or nothing on plain loopback HTTP. */
export function certificateLines(shell: WebShell, tls: TlsIdentity | null, dataDir: string): string[] {
  if (shell.fingerprint === null) return [];
  const ca = tls?.ca ?? null;
  return [
    ...(tls?.generated ? [`Made a certificate for this store in ${dataDir}/tls.`] : []),
    `Certificate SHA-256 fingerprint: ${shell.fingerprint} (an Electron till shows it when connecting; a browser in its certificate viewer)`,
    ...(ca === null
      ? []
      : [`Store certificate authority SHA-256 fingerprint: ${certificateFingerprint(ca)}: a tablet that installs it from ${shell.origin}${STORE_CA_PATH} (its QR is on Devices) opens the store with no warning.`]),
  ];
}
