/**
 * Throughput and latency of `POST /v2/create_dynamic_pix` over loopback HTTP (issue point 9).
 * Not a test: a measurement, bounded in request count and in time.
 *
 *   node electron/sandbox/bench.ts [--requests 20000] [--concurrency 16] [--seconds 30] [--url http://127.0.0.1:8787] [--dynamic]
 *
 * Without --url it starts a sandbox in this process (client and server then share one
 * event loop: the figures are a floor). Sales go to printed checkouts by default, so every
 * request also displaces the previous sale: the path that must not slow down as sales
 * accumulate (sales are indexed by checkout and by pix_id; nothing scans them all).
 * firstThousandP50Ms vs lastThousandP50Ms shows whether latency grows with the number of sales.
 */
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { FIXTURE_TOKENS } from './fixture.ts';
import { startSandbox } from './server.ts';

export interface BenchOptions {
  /** Requests to send (default 20,000; at most 500,000). */
  requests?: number;
  /** Stop after this many seconds even if requests remain (default 30; at most 600). */
  maxSeconds?: number;
  /** Requests in flight at once (default 16; 1 to 256). */
  concurrency?: number;
  /** A running sandbox (with its control API); default: start one in-process. */
  url?: string;
  /** Sell on printed checkouts (default true) or on standard dynamic ones. */
  printed?: boolean;
  /** Checkouts the requests rotate over (default 4). */
  checkouts?: number;
}

export interface BenchResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  firstThousandP50Ms: number;
  lastThousandP50Ms: number;
}

const clamp = (value: number | undefined, fallback: number, min: number, max: number): number => Math.min(max, Math.max(min, Math.floor(value ?? fallback)));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round((sorted[index] as number) * 1000) / 1000;
}

function p50(values: number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

function post(agent: Agent, base: URL, path: string, body: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: base.hostname, port: base.port, path, method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function benchCreateDynamicPix(opts: BenchOptions = {}): Promise<BenchResult> {
  const total = clamp(opts.requests, 20_000, 1, 500_000);
  const maxMs = clamp(opts.maxSeconds, 30, 1, 600) * 1000;
  const concurrency = clamp(opts.concurrency, 16, 1, 256);
  const checkouts = clamp(opts.checkouts, 4, 1, 1000);
  const printed = opts.printed ?? true;
  const own = opts.url === undefined ? await startSandbox({ port: 0 }) : null;
  const base = new URL(opts.url ?? (own as { url: string }).url);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const token = FIXTURE_TOKENS.manager;
  try {
    for (let c = 1; c <= checkouts; c++) {
      const status = await post(agent, base, '/v2/printed_dynamic_qrs', JSON.stringify({ checkout_id: c, auto_create_checkout: true }), token);
      if (status !== 201 && status !== 200) throw new Error(`bench setup: printed QR for checkout ${c} answered ${status}`);
      // A standard checkout: the same checkout, reverted to dynamic QRs (reference 4.3).
      if (!printed) await post(agent, base, `/v2/stores/1/checkouts/${c}/configs`, JSON.stringify({ config_type: 'default_qr', config_value: 'dynamic' }), token);
    }
    const latencies = new Array<number>(total);
    let next = 0;
    let done = 0;
    let failures = 0;
    const started = performance.now();
    const deadline = started + maxMs;
    const worker = async (): Promise<void> => {
      while (next < total && performance.now() < deadline) {
        const i = next++;
        const body = JSON.stringify({ amount: `${1 + (i % 500)}.${String(i % 100).padStart(2, '0')}`, checkout_id: 1 + (i % checkouts), external_id: `bench-${i}` });
        const t0 = performance.now();
        const status = await post(agent, base, '/v2/create_dynamic_pix', body, token);
        latencies[i] = performance.now() - t0;
        if (status !== 201) failures++;
        done++;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - started) / 1000;
    if (failures > 0) throw new Error(`bench: ${failures} of ${done} requests did not answer 201`);
    const measured = latencies.slice(0, next).filter((v) => v !== undefined);
    const sorted = [...measured].sort((a, b) => a - b);
    const window = Math.min(1000, Math.max(1, Math.floor(measured.length / 2)));
    return {
      requests: done,
      seconds: Math.round(seconds * 1000) / 1000,
      rps: Math.round(done / seconds),
      p50Ms: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
      p99Ms: percentile(sorted, 99),
      firstThousandP50Ms: p50(measured.slice(0, window)),
      lastThousandP50Ms: p50(measured.slice(-window)),
    };
  } finally {
    agent.destroy();
    await own?.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string' },
      concurrency: { type: 'string' },
      seconds: { type: 'string' },
      url: { type: 'string' },
      dynamic: { type: 'boolean', default: false },
    },
  });
  const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));
  benchCreateDynamicPix({ requests: num(values.requests), concurrency: num(values.concurrency), maxSeconds: num(values.seconds), url: values.url, printed: !values.dynamic }).then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
