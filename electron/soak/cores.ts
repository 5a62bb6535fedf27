/**
 * The fault campaign over several cores (issue 23 point 7): N `npm run server` processes
 * (electron/web/cli.ts --server) on one PostgreSQL database of the campaign's own, one
 * standalone sandbox as the payment service, and a round-robin TCP front (../bench/front.ts) for the
 * tills' address and one for the webhook address the sandbox delivers to. Exactly one core
 * holds the merchant's lease and writes; a standby relays the tills that reach it to the
 * active core and keeps the webhooks it takes in the database's inbox.
 *
 * The plan (plan.ts) is the single-core campaign's: 8 tills, one per checkout, paired once
 * through the front and never reconfigured, each the renderer's own bridge in a worker
 * thread (till-page.ts) that connects again by itself when its connection ends, ring up its
 * sales while webhooks are duplicated,
 * reordered, delayed and dropped and the routes the core calls fail. A core (any of them, the
 * active one included, drawn from the seed) is SIGKILLed where the plan kills, and started
 * again on its data dir a moment later, as a supervisor would; once, the database server is
 * restarted (only a throwaway cluster the campaign started itself: a shared server is never
 * restarted, and the report says the restart was left out). Then a drain and the audit
 * (audit.ts) of the journal the cores wrote, read from PostgreSQL with the app's own adapter,
 * against the sandbox's record.
 *
 * A server core runs on real time (it has no clock to move), so the plan's clock jumps are
 * left out; the drain moves the sandbox's clock alone, within the webhook signature's
 * tolerance, to bring its retries due.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import postgres from 'postgres';
import { systemClock } from '../shared/clock.ts';
import { mulberry32 } from '../shared/prng.ts';
import { formatCents, wireBrlCents } from '../shared/money.ts';
import { FIXTURE_TOKENS, FIXTURE_WEBHOOK_SECRET } from '../sandbox/fixture.ts';
import { CORE_TOOK_OVER, type VerifyResult } from '../core/journal/port.ts';
import type { Envelope } from '../core/errors.ts';
import { refundsMadeCents, type Sale } from '../core/sales/lifecycle.ts';
import { OPERATOR_ACTIONS, reduceSaleRow, saleRowKeys, type SaleRow } from '../core/terminal/entries.ts';
import { TEST_PIN } from '../core/operators/fixtures/sign-in.ts';
import { serviceControl } from '../core/terminal/fixtures/service.ts';
import type { UnmatchedPayment } from '../core/terminal/terminal.ts';
import type { CheckoutView } from '../core/terminal/views.ts';
import { maskedUrl, openPool } from '../postgres/connect.ts';
import { openPostgresJournal } from '../postgres/journal.ts';
import { freeLoopbackPort, openTestDatabase, type TestDatabase } from '../postgres/fixtures/test-database.ts';
import { BridgeClient } from '../web/fixtures/bridge-client.ts';
import { startCliProcess, type CliProcess } from '../web/fixtures/cli-process.ts';
import { loadTlsIdentity } from '../web/tls.ts';
import { auditJournal, type ServiceSaleRecord } from './audit.ts';
import { loopbackTargets, startFront, type Front } from '../bench/front.ts';
import type { CampaignOutcome } from './outcome.ts';
import { CHECKOUTS, planCampaign, REFUND_ROUTE, type RefundPlan, type SalePlan } from './plan.ts';
import { control, payAtService, webhookTally, type WebhookTally } from './service-steps.ts';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.ts';

const STORE = 1;
const WEB_TOKEN = 'soak-cores-store-token-0123456789';
const MANAGER = { name: 'Marta', pin: TEST_PIN };
const OPEN = new Set(['requested', 'pending', 'uncertain']);
const UNRESOLVED = new Set(['requested', 'uncertain']);
/** A restart on a loaded machine: the module graph, the pool, the lease. */
const START_TIMEOUT_MS = 90_000;
/** The sandbox's clock may run ahead of the cores' by this much at most: under the receiver's 5-minute signature tolerance. */
const SANDBOX_AHEAD_MAX_S = 240;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The campaign could not be set up as asked (a database it cannot make): said in a sentence, not a stack. */
export class CoresSetupError extends Error {}

/** Where the cores' database lives: a fresh database on a server given by URL, a throwaway cluster started here, or whichever the test fixture finds. */
export type CoresDatabase = { url: string } | 'throwaway' | 'any';

export interface CoresSoakOptions {
  cores: number;
  sales: number;
  seed: number;
  minutes: number;
  killEvery: readonly [number, number];
  drainSeconds: number;
  database: CoresDatabase;
  keepDataDir?: boolean;
  log?: (line: string) => void;
  tracked?: Set<ChildProcess>;
}

export interface CoreKill {
  core: string;
  /** The killed core held the lease (its health address answered 200 just before). */
  wasActive: boolean;
  /** From the SIGKILL to the restarted core listening again (standing by or serving). */
  backMs: number;
}

export interface CoresSoakResult extends CampaignOutcome {
  seed: number;
  cores: number;
  killEvery: readonly [number, number];
  salesPlanned: number;
  salesRun: number;
  kills: CoreKill[];
  /** Core exits nobody asked for: each is a finding. */
  crashes: string[];
  /** Times a live core said it lost the lease (another core took over while it still ran). */
  leaseLost: number;
  /**
   * Takeovers as the journal holds them (core.took_over: another core took the lease, as
   * opposed to a core started again in place taking its own back), and the holders in turn.
   */
  takeovers: { count: number; holders: string[] };
  /** What happened to the one PostgreSQL restart: done, or why it was left out. */
  postgresRestart: { done: boolean; note: string };
  database: 'given' | 'local' | 'throwaway';
  routeFaults: number;
  webhooks: WebhookTally & { keptInInbox: number };
  /** The plan's clock jumps not made (a server core runs on real time). */
  clockJumpsLeftOut: number;
  /** Connections each front handed to each core (tills, webhooks). */
  front: { tills: number[]; webhooks: number[] };
  /** Times a till's connection ended under it and it connected again by itself. */
  tillReconnects: number;
}

/** One `npm run server` process across its deaths: same data dir, same ports. */
class ServerCore {
  #process: CliProcess | null = null;
  #killing = false;
  #closed = false;
  readonly crashes: string[] = [];

  readonly name: string;
  readonly ports: { web: number; webhook: number; health: number };
  readonly env: Record<string, string>;
  readonly tracked: Set<ChildProcess>;
  readonly log: (line: string) => void;

  constructor(name: string, ports: { web: number; webhook: number; health: number }, env: Record<string, string>, tracked: Set<ChildProcess>, log: (line: string) => void) {
    this.name = name;
    this.ports = ports;
    this.env = env;
    this.tracked = tracked;
    this.log = log;
  }

  /** Times this core said it lost the merchant's lease while it lived (fenced: another core took over under it). */
  leaseLost = 0;
  /** Started and listening (standing by or serving), not killed since: a core still starting is not one to kill. */
  up = false;

  get child(): ChildProcess | null {
    return this.#process?.child ?? null;
  }

  get live(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts it and waits until it listens: standing by, or serving. */
  async start(): Promise<void> {
    const started = startCliProcess({
      name: `core ${this.name}`,
      args: ['--server'],
      env: this.env,
      keep: 20_000,
      onOutput: (chunk) => (this.leaseLost += chunk.match(/lost the merchant's lease/g)?.length ?? 0),
    });
    this.#process = started;
    const child = started.child;
    this.tracked.add(child);
    child.once('exit', (code, signal) => {
      this.up = false;
      this.tracked.delete(child);
      if (this.#killing || this.#closed) return;
      // Nobody asked for this exit: a finding. Started again so the campaign goes on.
      this.crashes.push(`core ${this.name} pid ${child.pid} exited by itself (${signal ?? code}):\n${started.out().slice(-3_000)}`);
      this.log(`core ${this.name} exited by itself (${signal ?? code}); starting it again`);
      void sleep(1_000).then(() => (this.#closed || this.live ? undefined : this.start().catch(() => undefined)));
    });
    await this.until(/Standing by: |Pix cashier is running/, START_TIMEOUT_MS);
    this.up = true;
  }

  until(pattern: RegExp, ms: number): Promise<void> {
    return this.#process?.until(pattern, ms) ?? Promise.reject(new Error(`core ${this.name} ended before saying ${pattern}:\n`));
  }

  /** Whether it holds the lease now: its health address answers 200 on the active core only. */
  async active(): Promise<boolean> {
    if (!this.live) return false;
    const res = await fetch(`http://127.0.0.1:${this.ports.health}/health`, { signal: AbortSignal.timeout(2_000) }).catch(() => null);
    return res?.status === 200;
  }

  async kill(): Promise<void> {
    this.up = false;
    if (this.#process === null || !this.live) return;
    this.#killing = true;
    await this.#process.kill();
    this.#killing = false;
  }

  async stop(): Promise<void> {
    this.#closed = true;
    if (this.#process === null || !this.live) return;
    await this.#process.stop(20_000);
  }
}

/** Thrown to a till's step when its connection ended (or went silent) before the answer: its outcome is unknown. */
class TillGone extends Error {}

/** A call's bound: past it the page is taken as cut off, as a cashier would give up waiting. */
const CALL_BOUND_MS = 120_000;

/**
 * A till paired once with its checkout, at the front's address for good: the renderer's own
 * bridge in a worker thread (till-page.ts). When its connection ends (its core, or the core
 * it was relayed to, died) the bridge connects again by itself; a call cut off answers
 * `disconnected`, and a sign-in the new connection does not carry answers `signed_out`, upon
 * which the cashier signs in again.
 */
class Till {
  readonly checkout: number;
  readonly #worker: Worker;
  readonly #pending = new Map<number, (envelope: Envelope<unknown>) => void>();
  #next = 1;
  #wasOpen = false;
  #signingIn: Promise<void> | null = null;
  /** Times its connection ended after being open and the bridge opened it again. */
  reconnects = 0;

  constructor(checkout: number, origin: string, credential: string, ca: string) {
    this.checkout = checkout;
    this.#worker = new Worker(new URL('./till-page.ts', import.meta.url), { workerData: { origin, ca, credential } });
    this.#worker.on('message', (msg: { id?: number; envelope?: Envelope<unknown>; state?: string }) => {
      if (msg.state === 'open') {
        if (this.#wasOpen) this.reconnects += 1;
        this.#wasOpen = true;
      }
      if (msg.id !== undefined && msg.envelope !== undefined) {
        this.#pending.get(msg.id)?.(msg.envelope);
        this.#pending.delete(msg.id);
      }
    });
    this.#worker.on('error', (err) => {
      for (const resolve of this.#pending.values()) resolve({ ok: false, error: { code: 'internal', message: `the till's page failed: ${String(err)}` } } as Envelope<unknown>);
      this.#pending.clear();
    });
  }

  #send<R>(method: string, args?: unknown): Promise<Envelope<R>> {
    const id = this.#next++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        resolve({ ok: false, error: { code: 'disconnected', message: `no answer to ${method} within ${CALL_BOUND_MS / 1000} s` } } as unknown as Envelope<R>);
      }, CALL_BOUND_MS);
      this.#pending.set(id, (envelope) => {
        clearTimeout(timer);
        resolve(envelope as Envelope<R>);
      });
      this.#worker.postMessage({ id, method, args });
    });
  }

  /** The cashier signs in (again): asked until it is answered. */
  signIn(): Promise<void> {
    this.#signingIn ??= (async () => {
      for (let i = 0; ; i++) {
        const envelope = await this.#send('auth.signIn', MANAGER);
        if (envelope.ok) return;
        if ((envelope.error.code as string) !== 'disconnected' && i >= 30) throw new Error(`till ${this.checkout} could not sign in: ${envelope.error.code} ${envelope.error.message}`);
        await sleep(250);
      }
    })().finally(() => (this.#signingIn = null));
    return this.#signingIn;
  }

  /** One call; TillGone if its connection ended before the answer (its outcome is then unknown). */
  async call<R>(method: string, args?: unknown): Promise<Envelope<R>> {
    const envelope = await this.#send<R>(method, args);
    if (envelope.ok) return envelope;
    const code = envelope.error.code as string;
    if (code === 'disconnected') throw new TillGone(envelope.error.message);
    // The connection was made anew and its sign-in did not come with it: the screen asks again.
    if (code === 'signed_out') await this.signIn();
    return envelope;
  }

  /** A read, asked again across reconnections until it is answered. */
  async read<R>(method: string, args?: unknown): Promise<R> {
    for (let i = 0; ; i++) {
      try {
        const envelope = await this.call<R>(method, args);
        if (envelope.ok) return envelope.result;
        if (i >= 30 || envelope.error.code === 'invalid_argument') throw new Error(`${method} refused: ${envelope.error.code} ${envelope.error.message}`);
      } catch (err) {
        if (!(err instanceof TillGone)) throw err;
      }
      await sleep(200);
    }
  }

  close(): Promise<number> {
    return this.#worker.terminate();
  }
}

export interface CoreKillPlan {
  /** Kill whichever core is active then (else the core at `any`). */
  activeOne: boolean;
  any: number;
  /** How long the killed core stays down before its supervisor starts it again. */
  downMs: number;
}

/**
 * What the multi-core campaign draws beyond the plan, from streams of their own so a seed's
 * sales, faults and kill points stay the single-core campaign's: which core each kill takes,
 * how long it stays down, and after which sale the database server is restarted.
 */
export function planCores(plans: readonly SalePlan[], seed: number, cores: number): { kills: Map<number, CoreKillPlan>; restartAt: number } {
  const coreRandom = mulberry32(seed ^ 0x00c0_4e55);
  const restartRandom = mulberry32(seed ^ 0x0bac_0ff5);
  const kills = new Map(
    plans.filter((p) => p.killAfterMs !== null).map((p) => [p.index, { activeOne: coreRandom() < 0.5, any: Math.floor(coreRandom() * cores), downMs: 2_000 + Math.floor(restartRandom() * 10_000) }]),
  );
  // Once, a third to two thirds of the way through.
  const restartAt = Math.floor(plans.length / 3 + mulberry32(seed ^ 0x0d0b_5e1f)() * (plans.length / 3));
  return { kills, restartAt };
}

const typedAmount = (cents: number) => `${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`;

export async function runCoresSoak(options: CoresSoakOptions): Promise<CoresSoakResult> {
  if (options.cores < 2) throw new Error('the multi-core campaign needs at least 2 cores');
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  const hardDeadline = started + options.minutes * 60_000;
  const salesDeadline = hardDeadline - options.drainSeconds * 1_000 - 45_000;
  const tracked = options.tracked ?? new Set<ChildProcess>();
  const dataDir = await mkdtemp(join(tmpdir(), 'pos-soak-cores-'));
  let keep = options.keepDataDir ?? false;
  let db: TestDatabase | null = null;
  let sandbox: SandboxProcess | null = null;
  const cores: ServerCore[] = [];
  const fronts: Front[] = [];
  const tills: Till[] = [];
  try {
    // A database of the campaign's own, dropped at the end: on the given server, or a throwaway cluster.
    const given = typeof options.database === 'object' ? options.database.url : null;
    const env = options.database === 'throwaway' ? { POS_TEST_PG_THROWAWAY: '1' } : given !== null ? { POS_TEST_DATABASE_URL: given } : process.env;
    try {
      db = await openTestDatabase({ env });
    } catch (err) {
      if (given === null) throw err;
      const reason = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message;
      throw new CoresSetupError(`--database-url (${maskedUrl(given)}) cannot make the campaign's database there: ${reason}. Check the server answers and the user may create databases.`, { cause: err });
    }
    const databaseUrl = db.url;
    log(`database ${new URL(databaseUrl).pathname.slice(1)} on the ${db.server} server; data dir ${dataDir}`);

    sandbox = await startSandboxProcess(tracked);
    const svc = serviceControl(sandbox.url);
    for (let c = 1; c <= CHECKOUTS; c++) await svc.printCheckout(STORE, c);
    await control(svc, 'POST', '/_sandbox/faults', { target: 'idempotency', ...REFUND_ROUTE, fault: 'ignore_key', count: 1000 });

    // One certificate for every core: a till trusts the one it paired with, whichever core answers.
    const certDir = join(dataDir, 'cert');
    const tls = await loadTlsIdentity({ dataDir: certDir, hosts: ['127.0.0.1', 'localhost'] });
    const ca = tls.ca ?? tls.cert;
    const portsOf: Array<{ web: number; webhook: number; health: number }> = [];
    const taken = new Set<number>();
    const freshPort = async () => {
      for (;;) {
        const p = await freeLoopbackPort();
        if (!taken.has(p)) {
          taken.add(p);
          return p;
        }
      }
    };
    for (let i = 0; i < options.cores; i++) portsOf.push({ web: await freshPort(), webhook: await freshPort(), health: await freshPort() });
    const tillFront = await startFront(loopbackTargets(portsOf.map((p) => p.web)));
    fronts.push(tillFront);
    const hookFront = await startFront(loopbackTargets(portsOf.map((p) => p.webhook)));
    fronts.push(hookFront);
    const frontOrigin = `https://127.0.0.1:${tillFront.port}`;
    await control(svc, 'PUT', '/_sandbox/webhook', { url: `http://127.0.0.1:${hookFront.port}/webhooks`, secret: FIXTURE_WEBHOOK_SECRET });
    // The names a till's page may come from: the front's, and each core's own.
    const names = [`127.0.0.1:${tillFront.port}`, ...portsOf.map((p) => `127.0.0.1:${p.web}`)];
    const inherited = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => !e[0].startsWith('POS_') && e[1] !== undefined));
    for (let i = 0; i < options.cores; i++) {
      const name = String.fromCharCode(97 + i);
      const coreDir = join(dataDir, `core-${name}`);
      const ports = portsOf[i] as (typeof portsOf)[number];
      cores.push(
        new ServerCore(
          name,
          ports,
          {
            ...inherited,
            POS_DATA_DIR: coreDir,
            POS_LANG: 'en',
            POS_DATABASE_URL: databaseUrl,
            POS_SERVICE_URL: sandbox.url,
            POS_SERVICE_TOKEN: FIXTURE_TOKENS.manager,
            POS_WEBHOOK_SECRET: FIXTURE_WEBHOOK_SECRET,
            POS_WEB_HOST: '127.0.0.1',
            POS_WEB_PORT: String(ports.web),
            POS_WEB_TOKEN: WEB_TOKEN,
            POS_WEB_NAMES: names.join(','),
            POS_WEBHOOK_PORT: String(ports.webhook),
            POS_HEALTH_PORT: String(ports.health),
            POS_TLS_CERT: join(certDir, 'tls', 'cert.pem'),
            POS_TLS_KEY: join(certDir, 'tls', 'key.pem'),
          },
          tracked,
          log,
        ),
      );
    }
    // The first to start takes the lease; the others stand by.
    await (cores[0] as ServerCore).start();
    await Promise.all(cores.slice(1).map((c) => c.start()));
    log(`${cores.length} cores: tills at ${frontOrigin}, webhooks at 127.0.0.1:${hookFront.port}; core a active, the others standing by`);

    // The store's window (through the front, maybe relayed): its first manager pairs a till per checkout, once.
    const store = await openThrough(frontOrigin, { token: WEB_TOKEN }, ca);
    const setup = await store.call('auth.createFirstManager', MANAGER);
    if (!setup.ok) await store.ok('auth.signIn', MANAGER);
    for (let c = 1; c <= CHECKOUTS; c++) {
      const { code } = await store.ok<{ code: string }>('devices.startPairing', { kind: 'till', storeId: STORE, checkoutId: c, name: `Till ${c}` });
      const unpaired = await openThrough(frontOrigin, 'unpaired', ca);
      const paired = await unpaired.ok<{ credential: string }>('pairing.pair', { code });
      unpaired.close();
      tills.push(new Till(c, frontOrigin, paired.credential, ca));
    }
    store.close();
    await Promise.all(tills.map((till) => till.signIn()));

    const counters = { routeFaults: 0, webhookFaults: 0, delayedOrReordered: 0, clockJumpsLeftOut: 0, paid: 0, late: 0, refused: 0, waitsTimedOut: 0, salesRun: 0 };
    const refundCounters = { asked: 0, faulted: 0, wasMade: 0, sentAgain: 0 };
    const plans = planCampaign({ sales: options.sales, seed: options.seed, killEvery: options.killEvery });
    const { kills: killPlan, restartAt } = planCores(plans, options.seed, options.cores);
    const kills: CoreKill[] = [];
    const background: Promise<void>[] = [];
    const postgresRestart = { done: false, note: '' };
    if (db.server !== 'throwaway') postgresRestart.note = `left out: the ${db.server} server is shared and is never restarted by the campaign (--throwaway-database restarts a cluster of its own)`;
    let killing: Promise<void> = Promise.resolve();

    const killOne = (plan: SalePlan) => {
      const choice = killPlan.get(plan.index);
      if (choice === undefined) return;
      // One kill at a time, and never the last core standing: the next waits while only one is up.
      const killed = killing.then(async () => {
        await sleep(plan.killAfterMs ?? 0);
        let live = cores.filter((c) => c.up && c.live);
        while (live.length < 2) {
          await sleep(200);
          live = cores.filter((c) => c.up && c.live);
        }
        const actives = await Promise.all(live.map((c) => c.active()));
        const active = live.find((_c, i) => actives[i]);
        const victim = choice.activeOne && active ? active : live.includes(cores[choice.any] as ServerCore) ? (cores[choice.any] as ServerCore) : (live[choice.any % live.length] as ServerCore);
        const wasActive = victim === active;
        await victim.kill();
        log(`SIGKILL core ${victim.name}${wasActive ? ' (the active one)' : ' (standing by)'} at sale ${plan.index}; started again in ${(choice.downMs / 1000).toFixed(1)} s`);
        return { victim, wasActive, t0: performance.now() };
      });
      // Started again by its supervisor on the same data dir, after a while, while the next kill may already come.
      const run = killed.then(async ({ victim, wasActive, t0 }) => {
        await sleep(choice.downMs);
        await victim.start();
        kills.push({ core: victim.name, wasActive, backMs: performance.now() - t0 });
      });
      killing = killed.then(() => undefined, () => undefined);
      background.push(run);
    };

    const restartDatabase = () => {
      if (db === null || db.server !== 'throwaway') return;
      const server = db;
      const run = (async () => {
        log(`restarting PostgreSQL (the throwaway cluster) after sale ${restartAt}`);
        const t0 = performance.now();
        await server.restart();
        postgresRestart.done = true;
        postgresRestart.note = `restarted once after sale ${restartAt} (down and up again in ${((performance.now() - t0) / 1000).toFixed(1)} s)`;
      })();
      background.push(run);
    };

    const recent = async (till: Till) => (await till.read<CheckoutView>('checkout.view', {})).recent;

    /** Rings a sale up through whichever core answers; its sale_id, or null if it never reached the journal. */
    const ringUp = async (till: Till, plan: SalePlan): Promise<string | null> => {
      const findByAmount = async () => (await recent(till)).find((s) => s.amount_cents === plan.amountCents)?.sale_id ?? null;
      for (let tries = 0; tries < 600; tries++) {
        try {
          const envelope = await till.call<CheckoutView>('sale.charge', { amount: typedAmount(plan.amountCents) });
          if (envelope.ok) return envelope.result.recent.find((s) => s.amount_cents === plan.amountCents)?.sale_id ?? (await findByAmount());
          const found = await findByAmount();
          if (found !== null) return found;
          // In flight before it (conflict), the core not serving yet, or the database away for a moment: asked again.
          if (tries < 60 || envelope.error.code === 'conflict') {
            await sleep(250);
            continue;
          }
          return null;
        } catch (err) {
          if (!(err instanceof TillGone)) throw err;
          // Its connection ended mid-charge: if the intent was journaled, the active core resumes it.
          const found = await findByAmount();
          if (found !== null) return found;
        }
      }
      throw new Error(`sale ${plan.index} (checkout ${plan.checkout}) could not be rung up`);
    };

    const pay = (body: Record<string, unknown>, plan: SalePlan): Promise<boolean> => payAtService(svc, counters, body, plan);

    const waitSettled = async (till: Till, saleId: string) => {
      const until = performance.now() + 10_000;
      while (performance.now() < until) {
        const sale = (await recent(till)).find((s) => s.sale_id === saleId);
        if (sale && !OPEN.has(sale.status)) return;
        await sleep(100);
      }
      counters.waitsTimedOut += 1;
    };

    const payLate = async (till: Till, prev: { plan: SalePlan; saleId: string | null }) => {
      let pixId = prev.saleId === null ? undefined : ((await recent(till)).find((s) => s.sale_id === prev.saleId)?.pix_id ?? undefined);
      if (pixId === undefined) {
        const rows = (await svc('GET', `/_sandbox/sales?store_id=${STORE}&checkout_id=${prev.plan.checkout}`)).body as ServiceSaleRecord[];
        pixId = rows.find((r) => r.amount_brl === formatCents(prev.plan.amountCents))?.pix_id;
      }
      if (pixId === undefined) return;
      if (await pay({ late_for: pixId, amount: formatCents(prev.plan.paidCents) }, prev.plan)) counters.late += 1;
    };

    const refundSale = async (till: Till, saleId: string, refund: RefundPlan) => {
      if (refund.fault !== null) {
        await control(svc, 'POST', '/_sandbox/faults', { target: 'route', ...REFUND_ROUTE, fault: refund.fault, count: 1 });
        refundCounters.faulted += 1;
      }
      refundCounters.asked += 1;
      // Cut off or refused in words: the audit holds whatever the service did.
      await till.call('sale.refund', { saleId, amountCents: refund.cents }).catch((err: unknown) => {
        if (!(err instanceof TillGone)) throw err;
      });
    };

    const worker = async (till: Till) => {
      let owedLate: { plan: SalePlan; saleId: string | null } | null = null;
      for (const plan of plans) {
        if (plan.checkout !== till.checkout) continue;
        if (performance.now() > salesDeadline) break;
        counters.salesRun += 1;
        if (plan.killAfterMs !== null) killOne(plan);
        if (plan.index === restartAt) restartDatabase();
        if (plan.clockSeconds > 0) counters.clockJumpsLeftOut += 1;
        if (plan.routeFault) {
          await control(svc, 'POST', '/_sandbox/faults', { target: 'route', ...plan.routeFault });
          counters.routeFaults += 1;
        }
        const saleId = await ringUp(till, plan);
        const late = owedLate;
        owedLate = null;
        if (late && plan.lateFirst) await payLate(till, late);
        if (plan.fate === 'paid' || plan.fate === 'mismatch') {
          const body: Record<string, unknown> = { store_id: STORE, checkout_id: till.checkout };
          if (plan.fate === 'mismatch') body.amount = formatCents(plan.paidCents);
          if ((await pay(body, plan)) && saleId !== null) {
            counters.paid += 1;
            await waitSettled(till, saleId);
            if (plan.refund !== null) await refundSale(till, saleId, plan.refund);
          }
        } else if (plan.fate === 'late' || plan.fate === 'late_mismatch') {
          owedLate = { plan, saleId };
        }
        if (late && !plan.lateFirst) await payLate(till, late);
      }
    };

    log(`seed ${options.seed}: ${plans.length} sales on ${CHECKOUTS} tills, ${killPlan.size} kills planned, ${db.server === 'throwaway' ? `the database restart after sale ${restartAt}` : 'no database restart (a shared server)'}`);
    const progress = setInterval(() => log(`… ${counters.salesRun} sales, ${kills.length} kills, ${Math.round((performance.now() - started) / 1000)} s`), 10_000);
    try {
      await Promise.all(tills.map((till) => worker(till)));
      await Promise.all(background);
    } finally {
      clearInterval(progress);
    }

    // ── Drain: faults off; the sandbox's retries brought due; until nothing changes. ─────
    const drainStarted = performance.now();
    const drainDeadline = Math.min(drainStarted + options.drainSeconds * 1_000, hardDeadline - 30_000);
    await control(svc, 'DELETE', '/_sandbox/faults', {});
    const watcher = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    const entriesNow = async () => Number((await watcher<{ n: string }[]>`select count(*) as n from entries`)[0]?.n ?? -1);
    let sandboxAheadS = 0;
    let drained = false;
    let lastEntries = -1;
    let still = 0;
    const anyTill = tills[0] as Till;
    try {
      while (performance.now() < drainDeadline) {
        const events = (await svc('GET', '/_sandbox/events')).body as Array<{ state: string; next_attempt_at: string | null }>;
        const waiting = events.filter((e) => e.state === 'pending' || e.state === 'in_flight' || e.state === 'held');
        const entries = await entriesNow();
        let unresolved = 0;
        for (const till of tills) unresolved += (await recent(till)).filter((s) => UNRESOLVED.has(s.status)).length;
        const inbox = Number((await watcher<{ n: string }[]>`select count(*) as n from webhook_inbox where outcome is null`)[0]?.n ?? 0);
        still = waiting.length === 0 && unresolved === 0 && inbox === 0 && entries === lastEntries ? still + 1 : 0;
        lastEntries = entries;
        if (still >= 3) {
          drained = true;
          break;
        }
        // A retry due later on the sandbox's clock: moved there, while it stays within the signature's tolerance.
        const now = Date.now() + sandboxAheadS * 1_000;
        const nextRetry = Math.min(...waiting.filter((e) => e.next_attempt_at !== null).map((e) => Date.parse(e.next_attempt_at as string) - now));
        if (Number.isFinite(nextRetry) && nextRetry > 2_000) {
          const step = Math.min(Math.ceil(nextRetry / 1_000) + 1, SANDBOX_AHEAD_MAX_S - sandboxAheadS);
          if (step > 0) {
            await control(svc, 'POST', '/_sandbox/clock/advance', { seconds: step });
            sandboxAheadS += step;
          }
        }
        await sleep(2_000);
      }
      // A supervisor answers every refund left not confirmed, from the service's record of the charge.
      for (let round = 0; round < 3; round++) {
        const waitingRefunds = (await readJournal(databaseUrl)).sales.flatMap((sale) =>
          (sale.refunds ?? []).filter((r) => r.state === 'unconfirmed').map((r) => ({ sale, refundId: r.refund_id, amountCents: r.amount_cents })),
        );
        if (waitingRefunds.length === 0) break;
        const rows = (await svc('GET', `/_sandbox/sales?store_id=${STORE}`)).body as ServiceSaleRecord[];
        for (const w of waitingRefunds) {
          const atService = wireBrlCents(rows.find((r) => r.service_id === w.sale.service_id)?.refunded_brl ?? '0.00') ?? 0;
          const known = refundsMadeCents(w.sale);
          const wasMade = atService >= known + w.amountCents;
          const answer = wasMade ? await anyTill.call('sale.refundWasMade', { saleId: w.sale.sale_id, refundId: w.refundId }).catch(() => null) : await anyTill.call('sale.refundSendAgain', { saleId: w.sale.sale_id, refundId: w.refundId, amountCents: w.amountCents }).catch(() => null);
          if (answer?.ok) {
            if (wasMade) refundCounters.wasMade += 1;
            else refundCounters.sentAgain += 1;
          }
        }
        await sleep(3_000);
      }
    } finally {
      await watcher.end({ timeout: 1 });
    }
    const drainMs = performance.now() - drainStarted;
    log(drained ? `drained in ${Math.round(drainMs / 1000)} s` : `the drain's bound passed before the cores stopped changing (${Math.round(drainMs / 1000)} s)`);

    // ── Audit: what the cores wrote, read from PostgreSQL with the app's own adapter. ─────
    const unmatched = await anyTill.read<UnmatchedPayment[]>('payments.unmatched');
    const crashes = cores.flatMap((c) => c.crashes);
    const tillReconnects = tills.reduce((n, t) => n + t.reconnects, 0);
    await Promise.all(tills.splice(0).map((till) => till.close()));
    // The standbys first: the active core then stops without a standby taking over behind it.
    const roles = await Promise.all(cores.map((c) => c.active()));
    await Promise.all(cores.filter((_c, i) => !roles[i]).map((c) => c.stop()));
    await Promise.all(cores.map((c) => c.stop()));
    const journal = await readJournal(databaseUrl);
    const keptInInbox = await countInbox(databaseUrl);
    const takeovers = await readTakeovers(databaseUrl, cores);
    const service = (await svc('GET', `/_sandbox/sales?store_id=${STORE}`)).body as ServiceSaleRecord[];
    const audit = auditJournal({ service, journal: journal.sales, unmatched });
    const attempts = (await svc('GET', '/_sandbox/webhooks')).body as Array<{ webhook_id: string; duplicate?: boolean }>;
    const events = (await svc('GET', '/_sandbox/events')).body as Array<{ webhook_id: string; state: string }>;
    const failedCount = Object.values(audit.counts).reduce((a, b) => a + b, 0);
    if (failedCount > 0 || crashes.length > 0 || audit.unresolvedSales > 0 || !journal.verified.ok) {
      keep = true;
      await writeFile(join(dataDir, 'sandbox-sales.json'), JSON.stringify(service, null, 1));
      await writeFile(join(dataDir, 'sandbox-events.json'), JSON.stringify(events, null, 1));
      await writeFile(join(dataDir, 'sandbox-webhooks.json'), JSON.stringify(attempts, null, 1));
    }
    return {
      seed: options.seed,
      cores: options.cores,
      killEvery: options.killEvery,
      salesPlanned: plans.length,
      salesRun: counters.salesRun,
      kills,
      crashes,
      leaseLost: cores.reduce((n, c) => n + c.leaseLost, 0),
      takeovers,
      postgresRestart,
      database: db.server,
      routeFaults: counters.routeFaults,
      webhooks: { ...webhookTally(attempts, events, counters), keptInInbox },
      clockJumpsLeftOut: counters.clockJumpsLeftOut,
      front: { tills: [...tillFront.handed], webhooks: [...hookFront.handed] },
      tillReconnects,
      payments: { paid: counters.paid, late: counters.late, refused: counters.refused },
      refunds: refundCounters,
      waitsTimedOut: counters.waitsTimedOut,
      durationMs: performance.now() - started,
      drainMs,
      drained,
      audit,
      journalVerify: journal.verified,
      dataDir: keep ? dataDir : null,
    };
  } finally {
    await Promise.all(tills.map((till) => till.close().catch(() => 0)));
    await Promise.all(cores.map((c) => c.stop().catch(() => undefined)));
    for (const front of fronts) await front.close().catch(() => undefined);
    await sandbox?.stop().catch(() => undefined);
    for (const child of tracked) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await db?.drop().catch(() => undefined);
    if (!keep) await rm(dataDir, { recursive: true, force: true });
  }
}

/** A bridge connection through the front, asked again until a core answers it (a standby relays it). */
async function openThrough(origin: string, as: Parameters<typeof BridgeClient.open>[1], ca: string): Promise<BridgeClient> {
  const until = performance.now() + 60_000;
  for (;;) {
    try {
      const client = await BridgeClient.open(origin, as, { ca, origin });
      await client.until(() => client.messages.find((m) => m.type === 'device') ?? client.closed ?? undefined, 'the device message');
      if (client.closed === null) return client;
    } catch (err) {
      if (performance.now() > until) throw err;
    }
    await sleep(250);
  }
}

/** The sandbox's control API always gets JSON; an answer outside 2xx is the campaign's own bug. */
/** Every sale of the campaign's checkouts as the app's PostgreSQL adapter folds them, and its verify of the hash chain. */
async function readJournal(url: string): Promise<{ sales: Sale[]; verified: VerifyResult }> {
  const sql = await openPool({ url, max: 2 });
  const journal = await openPostgresJournal<SaleRow>({ sql, endPoolOnClose: true, clock: systemClock, reduceSale: reduceSaleRow, saleKeys: saleRowKeys, operatorActions: OPERATOR_ACTIONS });
  try {
    const sales: Sale[] = [];
    for (let c = 1; c <= CHECKOUTS; c++) sales.push(...(await journal.sales.byCheckout(STORE, c)).map((row) => row.sale));
    return { sales, verified: await journal.verify() };
  } finally {
    await journal.close();
  }
}

/** The journal's takeover entries, each holder named by its core's letter (its data dir ends the holder's name). */
async function readTakeovers(url: string, cores: readonly ServerCore[]): Promise<{ count: number; holders: string[] }> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ data: string }[]>`select data from entries where type = ${CORE_TOOK_OVER} order by seq`;
    const holders = rows.map((r) => {
      const holder = String((JSON.parse(r.data) as { holder?: unknown }).holder ?? '');
      return cores.find((c) => holder.endsWith(`/core-${c.name}`))?.name ?? holder;
    });
    return { count: rows.length, holders };
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Webhooks a standby kept in the inbox for the active core to apply (a core's own are applied by itself). */
async function countInbox(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return Number((await sql<{ n: string }[]>`select count(*) as n from webhook_inbox where applied_by is distinct from received_by`)[0]?.n ?? 0);
  } finally {
    await sql.end({ timeout: 1 });
  }
}
