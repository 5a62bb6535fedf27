/**
 * Standalone sandbox: `npm run sandbox -- --port 8787`.
 *
 *   --port P          port to listen on (default 8787; 0 picks a free one)
 *   --host H          address to bind (default 127.0.0.1)
 *   --no-control      do not serve the /_sandbox/ control API
 *   --data-file F     keep the state in F across restarts
 *   --webhook-url U   every merchant's webhook endpoint from the start
 *   --webhook-concurrency N   webhook attempts under way at once (default 8; 1: one at a time)
 *
 * The control API has no authentication, so it is served on loopback only: binding another
 * address requires --no-control.
 */
import { parseArgs } from 'node:util';
import { startSandbox } from './server.ts';

const USAGE = 'usage: npm run sandbox -- [--port P] [--host H] [--no-control] [--data-file F] [--webhook-url U] [--webhook-concurrency N]';

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

async function main(argv: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: '8787' },
        host: { type: 'string', default: '127.0.0.1' },
        'no-control': { type: 'boolean', default: false },
        'data-file': { type: 'string' },
        'webhook-url': { type: 'string' },
        'webhook-concurrency': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`--port must be 0 to 65535, got ${values.port}\n${USAGE}`);
    process.exit(2);
  }
  const concurrency = values['webhook-concurrency'] === undefined ? undefined : Number(values['webhook-concurrency']);
  if (concurrency !== undefined && (!Number.isSafeInteger(concurrency) || concurrency < 1)) {
    console.error(`--webhook-concurrency must be a whole number of at least 1, got ${values['webhook-concurrency']}\n${USAGE}`);
    process.exit(2);
  }
  const control = !values['no-control'];
  if (control && !isLoopback(values.host)) {
    console.error(`the control API is loopback-only: bind 127.0.0.1, or pass --no-control to bind ${values.host}`);
    process.exit(2);
  }
  const sandbox = await startSandbox({
    port,
    host: values.host,
    control,
    persistFile: values['data-file'],
    webhook: values['webhook-url'] === undefined ? undefined : { url: values['webhook-url'] },
    webhookConcurrency: concurrency,
    log: (line) => console.error(`[sandbox] ${line}`),
  });
  console.log(`Payment-service sandbox listening on ${sandbox.url}${control ? ` (control API at ${sandbox.url}/_sandbox/)` : ''}`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    // close() flushes the data file before the process ends.
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (import.meta.main) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
