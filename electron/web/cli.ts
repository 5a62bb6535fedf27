import { writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { composeCore, journalOpener } from '../compose.ts';
import { ConfigError, CONFIG_HELP, loadConfig } from '../core/config.ts';
import { rememberSecrets, type Core } from '../core/core.ts';
import { sandboxHelp } from '../launch.ts';
import { steps } from '../core/terminal/steps.ts';
import { openAppWindow } from './open-browser.ts';
import type { WebShell } from './server.ts';
import { certificateLines, startStoreShell } from './store-shell.ts';
import { spkiPin, type TlsIdentity } from './tls.ts';
import { serverRefusal } from './server-mode.ts';
import { CoreHealth, startHealthServer } from './health.ts';
import { StandbyRelay } from './relay.ts';
import { systemClock } from '../shared/clock.ts';

/**
 * `npm run start:web`: the core plus the browser shell. Prints one line with the full
 * address to open (token included), and with --open also opens a local Chromium in app mode.
 *
 * `npm run server` (`--server`): the same headless core for a server, where tills connect over
 * the network: its journal in PostgreSQL and the merchant's real payment service, both
 * required; the embedded sandbox only when asked with --sandbox (to try a server out).
 */
const args = process.argv.slice(2);
const LOCAL_FLAGS = ['--open', '--remember-secrets', '--server', '--sandbox'];
const wantServer = args.includes('--server');
const wantSandbox = args.includes('--sandbox');
const wantOpen = args.includes('--open') && !wantServer;
const wantRemember = args.includes('--remember-secrets');
const coreArgs = args.filter((a) => !LOCAL_FLAGS.includes(a));

if (coreArgs.includes('--help')) {
  console.log(
    wantServer
      ? `npm run server -- [--sandbox] [--remember-secrets] [options]\n${CONFIG_HELP}\n  --sandbox             run on the embedded sandbox instead of POS_SERVICE_URL (to try a server out)`
      : `npm run start:web -- [--open] [--remember-secrets] [options]\n${CONFIG_HELP}`,
  );
  console.log(`  --remember-secrets    keep POS_SERVICE_TOKEN / POS_WEBHOOK_SECRET in the data dir's secret store for next time`);
  process.exit(0);
}

let config;
try {
  config = loadConfig(process.env, coreArgs);
  if (wantServer) {
    const missing = serverRefusal(config.databaseUrl !== null, config.service.kind === 'remote', wantSandbox);
    if (missing !== null) throw new ConfigError(missing);
  }
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`Cannot start: ${err.message}`);
    process.exit(2);
  }
  throw err;
}

// The health address listens first: a standby waiting for the lease is seen as one.
const health = new CoreHealth(systemClock, config.databaseUrl !== null);
let healthServer: Awaited<ReturnType<typeof startHealthServer>> | null = null;
if (config.healthPort !== undefined) {
  try {
    healthServer = await startHealthServer({ host: config.web.host, port: config.healthPort, health });
    console.log(`Health address for a load balancer: ${healthServer.url} (200 on the active core, 503 otherwise).`);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    console.error(code === 'EADDRINUSE' ? `Cannot start: port ${config.healthPort} is already in use; set POS_HEALTH_PORT to another port.` : `Cannot start the health address: ${(err as Error).message}`);
    process.exit(1);
  }
}

let core: Core;
// While standing by, the tills that reach this core's address are relayed to the active one (relay.ts).
let relay: StandbyRelay | null = null;
/** Once this core holds the lease, a standby line still waiting for the relay is not said. */
let tookLease = false;
try {
  const openJournal = await journalOpener(config, {
    onLease: (event) => {
      health.lease(event);
      const relayed = relay?.lease(event) ?? Promise.resolve(null);
      if (event.kind === 'taken') tookLease = true;
      // Said once the relay listens, not before: a till that connects on reading it is relayed, not refused.
      if (event.kind === 'standby') {
        void relayed.then((error) => {
          if (tookLease) return;
          if (error === null) console.log(`Standing by: the core at ${event.holder} is active on this database. This one takes over by itself when that one stops.`);
          else
            console.error(
              (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
                ? `Standing by without relaying tills: port ${config.web.port} is already in use, so tills that reach this computer are refused, and this core cannot open its shell when it takes over either. Stop the program on that port or set POS_WEB_PORT to a free one, then restart this core. The core at ${event.holder} is active on this database.`
                : `Standing by without relaying tills: ${config.web.host}:${config.web.port} cannot be listened on (${error.message}), so tills that reach this computer are refused. Check POS_WEB_HOST and POS_WEB_PORT, then restart this core. The core at ${event.holder} is active on this database.`,
            );
        });
      }
      if (event.kind === 'lost') console.error(`This core lost the merchant's lease (term ${event.term}): another core is active now, and this one no longer writes. Restart it to stand by.`);
    },
    onInbox: (depth) => health.inbox(depth),
  });
  core = await composeCore(config, openJournal ? { openJournal } : {});
  if (openJournal) relay = new StandbyRelay({ host: config.web.host, port: config.web.port, self: config.web.advertise, log: core.log });
} catch (err) {
  console.error(`Cannot start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(err instanceof ConfigError ? 2 : 1);
}
if (wantRemember) {
  const saved = await rememberSecrets(core);
  console.log(saved.length > 0 ? `Saved ${saved.join(' and ')} in ${config.dataDir}/secrets.json (readable by you only).` : 'No POS_SERVICE_TOKEN or POS_WEBHOOK_SECRET to remember.');
}
const rendererDir = fileURLToPath(new URL('../../out/renderer', import.meta.url));

let shell: WebShell | undefined;
let stopping = false;
// The bench's step timings (core/terminal/steps.ts): on only when it names a file for them.
const stepTimesFile = process.env.POS_STEP_TIMES;
if (stepTimesFile) steps.start(() => performance.now());

async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  core.log.info('shutting down', { signal });
  // Waiting for the lease (the health says so): nothing of the core is open yet.
  if (health.report().role === 'standby') {
    // Its start waits for a lease it may never get: nothing of the core's record is open yet.
    await relay?.close();
    await healthServer?.close();
    console.log('Stopped while standing by.');
    process.exit(0);
  }
  await shell?.close();
  await core.stop();
  await healthServer?.close();
  if (stepTimesFile) await writeFile(stepTimesFile, JSON.stringify(steps.stop()), { mode: 0o600 });
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

try {
  await core.start();
} catch (err) {
  console.error(`Cannot start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}

let tls: TlsIdentity | null = null;
try {
  // Taking the lease closed the relay; its port must be free before the shell listens on it.
  await relay?.close();
  ({ shell, tls } = await startStoreShell(core, config, rendererDir));
} catch (err) {
  const code = (err as NodeJS.ErrnoException).code;
  console.error(
    code === 'EADDRINUSE'
      ? `Cannot start: port ${config.web.port} is already in use; set POS_WEB_PORT to another port (0 picks a free one).`
      : `Cannot start the browser shell: ${(err as Error).message}`,
  );
  await core.stop();
  process.exit(1);
}

health.serving();
console.log(`Pix cashier is running: open ${shell.url}`);
// Where the record is kept, so whoever runs it knows what to back up (the URL holds no password: loadConfig refuses one).
console.log(config.databaseUrl === null ? `The journal is in ${config.dataDir}/journal.` : `The journal is in PostgreSQL at ${config.databaseUrl}.`);
for (const line of certificateLines(shell, tls, config.dataDir)) console.log(line);
const help = sandboxHelp(core.status().service, core.checkout);
if (help !== null) console.log(help);
if (wantOpen) {
  const outcome = openAppWindow(shell.launchUrl(), config.dataDir, tls === null ? null : spkiPin(tls.cert));
  console.log(outcome);
}

