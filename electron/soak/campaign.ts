/**
 * The fault campaign (issue 13 point 10): a standalone sandbox process, the core as a child
 * process (electron/core/terminal/fixtures/core-child.ts, the one the crash tests drive)
 * working 8 printed checkouts, and everything that goes wrong at a counter at once:
 * corrections, late payments on displaced sales, mismatched amounts, expiries, webhooks
 * duplicated, reordered, delayed and dropped, 502/503/plain 500/timeouts on every route the
 * core calls, and a SIGKILL of the core every few dozen sales with a restart on the same
 * data dir. Then a drain (faults off, the clocks moved to every retry and poll, until
 * nothing changes) and the audit (audit.ts) of the journal, read with the app's own
 * journal module, against the sandbox's record of every sale and payment.
 *
 * Loopback only; bounded by `minutes`; every process it starts is tracked and stopped by
 * its pid, whatever happens.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../shared/clock.ts';
import { formatCents, wireBrlCents } from '../shared/money.ts';
import { FIXTURE_TOKENS, FIXTURE_WEBHOOK_SECRET } from '../sandbox/fixture.ts';
import type { VerifyResult } from '../core/journal/port.ts';
import { openJournal } from '../core/journal/journal.ts';
import { refundsMadeCents, type Sale } from '../core/sales/lifecycle.ts';
import { OPERATOR_ACTIONS, reduceSaleRow, saleRowKeys, type SaleRow } from '../core/terminal/entries.ts';
import { freePort, startCoreProcess, type CoreProcess } from '../core/terminal/fixtures/core-child.ts';
import { serviceControl } from '../core/terminal/fixtures/service.ts';
import type { UnmatchedPayment } from '../core/terminal/terminal.ts';
import type { CheckoutView } from '../core/terminal/views.ts';
import { auditJournal, type ServiceSaleRecord } from './audit.ts';
import type { CampaignOutcome } from './outcome.ts';
import { CHECKOUTS, planCampaign, REFUND_ROUTE, type RefundPlan, type SalePlan } from './plan.ts';
import { control, payAtService, webhookTally, type WebhookTally } from './service-steps.ts';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.ts';

export interface SoakOptions {
  sales: number;
  seed: number;
  /** The whole run, drain and audit included, ends within this many minutes. */
  minutes: number;
  /** Sales between two SIGKILLs of the core, drawn from the seed in [min, max]. */
  killEvery: readonly [number, number];
  /** Upper bound of the drain phase. */
  drainSeconds: number;
  /** Keep the data dir (journal, logs) for a look afterwards. */
  keepDataDir?: boolean;
  log?: (line: string) => void;
  /** Where the processes it starts are tracked while they live (the CLI SIGKILLs them by pid if it must stop). */
  tracked?: Set<ChildProcess>;
}

export interface SoakResult extends CampaignOutcome {
  seed: number;
  killEvery: readonly [number, number];
  salesPlanned: number;
  /** Sales the campaign rang up before its time ran out. */
  salesRun: number;
  kills: number;
  /** From a SIGKILL to the restarted core's ready, median and longest. */
  restartMs: { p50: number; max: number };
  /** Restarts that did not get ready in time and were tried again. */
  failedStarts: string[];
  /** Core exits nobody asked for (a crash of the core itself): each is a finding. */
  crashes: string[];
  routeFaults: number;
  webhooks: WebhookTally;
  clockAdvances: number;
}

const STORE = 1;
/** A restart replays the whole journal (issue 13 point 8): generous, on a loaded 2-core machine. */
const START_TIMEOUT_MS = 120_000;
const OPEN = new Set(['requested', 'pending', 'uncertain']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Thrown to a step when the core it was talking to died under it. */
class CoreGone extends Error {}

/**
 * The core child across its deaths: one live process at a time, restarted on the same data
 * dir and webhook port with the clock offset the sandbox has now.
 */
class CoreHost {
  readonly #env: () => Record<string, string>;
  readonly #tracked: Set<ChildProcess>;
  readonly #log: (line: string) => void;
  #core: Promise<CoreProcess>;
  #killing = false;
  #lock: Promise<unknown> = Promise.resolve();
  #closed = false;
  #gaveUp = false;
  kills = 0;
  /** From each SIGKILL to the restarted core's `ready`: how long the counter stood still. */
  readonly restartsMs: number[] = [];
  readonly crashes: string[] = [];
  /** Starts that did not reach `ready` within START_TIMEOUT_MS (the start is then tried again). */
  readonly failedStarts: string[] = [];

  constructor(env: () => Record<string, string>, tracked: Set<ChildProcess>, log: (line: string) => void) {
    this.#env = env;
    this.#tracked = tracked;
    this.#log = log;
    this.#core = this.#spawn();
  }

  #spawn(): Promise<CoreProcess> {
    const started = startCoreProcess(this.#env(), this.#tracked, { startTimeoutMs: START_TIMEOUT_MS });
    void started.then(
      (core) =>
        void core.exited.then((how) => {
          if (this.#killing || this.#closed) return;
          // Nobody asked for this exit: the core crashed by itself. Recorded, and restarted so the campaign goes on.
          this.crashes.push(`core pid ${core.pid} exited by itself (${how}):\n${core.stderrTail()}`);
          this.#log(`the core exited by itself (${how}); restarting`);
          void this.exclusive(async () => {
            this.#core = this.#spawn();
            await this.#core;
          });
        }),
      () => undefined,
    );
    return started;
  }

  /** The live core (waits while it restarts). */
  ready(): Promise<CoreProcess> {
    return this.#core;
  }

  /** Kills, restarts and clock moves take turns: a restart always gets the clock as it is. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(work, work);
    this.#lock = run.catch(() => undefined);
    return run;
  }

  /** One call to whichever core is live; CoreGone if it dies before answering. */
  async call<T>(op: string, args?: Record<string, unknown>): Promise<T> {
    let core: CoreProcess;
    try {
      core = await this.#core;
    } catch (err) {
      // A start that timed out is tried again (killAndRestart) until it gives up.
      if (this.#gaveUp) throw err;
      await sleep(100);
      throw new CoreGone(String(err));
    }
    try {
      return await core.call<T>(op, args);
    } catch (err) {
      if (!isCoreAnswer(err)) throw new CoreGone(String(err));
      throw err;
    }
  }

  /** A call that is safe to repeat (a read): sent again to the next core if this one dies. */
  async read<T>(op: string, args?: Record<string, unknown>): Promise<T> {
    for (;;) {
      try {
        return await this.call<T>(op, args);
      } catch (err) {
        if (!(err instanceof CoreGone)) throw err;
        await sleep(20);
      }
    }
  }

  /** SIGKILL the live core and start another on the same data dir (a start that never gets ready is tried again, twice). */
  killAndRestart(): Promise<void> {
    return this.exclusive(async () => {
      if (this.#closed) return;
      const core = await this.#core;
      this.#killing = true;
      const t0 = performance.now();
      await core.kill();
      this.kills += 1;
      for (let attempt = 1; ; attempt++) {
        this.#core = this.#spawn();
        try {
          await this.#core;
          break;
        } catch (err) {
          this.failedStarts.push(`start after kill ${this.kills} (attempt ${attempt}): ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
          if (attempt >= 3) {
            this.#gaveUp = true;
            throw err;
          }
        }
      }
      this.#killing = false;
      this.restartsMs.push(performance.now() - t0);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#lock;
    const core = await this.#core.catch(() => null);
    await core?.stop();
  }
}

/** An error the core's line protocol answered (it has a code), as opposed to its death. */
const isCoreAnswer = (err: unknown) => err instanceof Error && typeof (err as { code?: unknown }).code === 'string';

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  const hardDeadline = started + options.minutes * 60_000;
  // The sales stop early enough for the drain and the audit to fit in the bound.
  const salesDeadline = hardDeadline - options.drainSeconds * 1_000 - 30_000;
  const tracked = options.tracked ?? new Set<ChildProcess>();
  const dataDir = await mkdtemp(join(tmpdir(), 'pos-soak-'));
  let sandbox: SandboxProcess | null = null;
  let host: CoreHost | null = null;
  let keep = options.keepDataDir ?? false;
  try {
    sandbox = await startSandboxProcess(tracked);
    const svc = serviceControl(sandbox.url);
    log(`sandbox pid ${sandbox.pid} at ${sandbox.url}; data dir ${dataDir}`);
    // In remote mode a manager printed each checkout's QR at the service (reference 4.4).
    for (let c = 1; c <= CHECKOUTS; c++) await svc.printCheckout(STORE, c);
    const webhookPort = await freePort();
    await control(svc, 'PUT', '/_sandbox/webhook', { url: `http://127.0.0.1:${webhookPort}/webhooks`, secret: FIXTURE_WEBHOOK_SECRET });
    // Contract 5 promises no refund key: the service ignores them here, so a refund asked
    // again by itself would be a second refund (the audit's refund doubled).
    await control(svc, 'POST', '/_sandbox/faults', { target: 'idempotency', ...REFUND_ROUTE, fault: 'ignore_key', count: 1000 });
    let clockOffsetMs = 0;
    const sandboxUrl = sandbox.url;
    const core = new CoreHost(
      () => ({
        POS_SERVICE_URL: sandboxUrl,
        POS_SERVICE_TOKEN: FIXTURE_TOKENS.manager,
        POS_WEBHOOK_SECRET: FIXTURE_WEBHOOK_SECRET,
        POS_WEBHOOK_PORT: String(webhookPort),
        POS_DATA_DIR: dataDir,
        POS_LANG: 'en',
        CORE_CLOCK_OFFSET_MS: String(clockOffsetMs),
      }),
      tracked,
      log,
    );
    host = core;
    const first = await core.ready();
    log(`core pid ${first.pid}, webhooks at ${first.webhookUrl}`);

    const counters = { routeFaults: 0, webhookFaults: 0, delayedOrReordered: 0, clockAdvances: 0, paid: 0, late: 0, refused: 0, waitsTimedOut: 0, salesRun: 0 };
    const refundCounters = { asked: 0, faulted: 0, wasMade: 0, sentAgain: 0 };
    /** Moves the sandbox's clock and the core's together (they share one clock, as embedded). */
    const advanceClock = (seconds: number) =>
      core.exclusive(async () => {
        // Steps under the receiver's 5-minute tolerance: a webhook signed between the two moves stays acceptable.
        for (let left = seconds; left > 0; left -= 150) {
          const step = Math.min(150, left);
          clockOffsetMs += step * 1_000;
          await control(svc, 'POST', '/_sandbox/clock/advance', { seconds: step });
          // A core restarted meanwhile read the new offset from its environment.
          await core.call('advanceClock', { ms: step * 1_000 }).catch(() => undefined);
        }
        counters.clockAdvances += 1;
      });
    /** Charges under way; a long jump of the clock waits for them (see passTime). */
    let charging = 0;
    let gate: Promise<void> | null = null;
    /**
     * Lets `seconds` pass at the counter: new charges wait and the ones under way finish
     * first (bounded), then the clocks jump. Creates the core is still resolving (requested,
     * uncertain, resent by the follow-up) are not waited for: a jump over them stands for a
     * core down or a service unreachable for that long, and the core must still settle them
     * from the service's record (checkout.ts openSales: the key lasts 24 hours).
     */
    const passTime = async (seconds: number) => {
      while (gate) await gate;
      let open!: () => void;
      gate = new Promise<void>((resolve) => (open = resolve));
      try {
        const until = performance.now() + 30_000;
        while (performance.now() < until && charging > 0) await sleep(50);
        await advanceClock(seconds);
      } finally {
        gate = null;
        open();
      }
    };

    const plans = planCampaign({ sales: options.sales, seed: options.seed, killEvery: options.killEvery });
    const kills: Promise<void>[] = [];

    /** Rings a sale up, whatever dies meanwhile; its sale_id, or null if it never reached the journal. */
    const ringUp = async (plan: SalePlan): Promise<string | null> => {
      const findByAmount = async () => (await core.read<Sale[]>('sales', { storeId: STORE, checkoutId: plan.checkout })).find((s) => s.amount_cents === plan.amountCents);
      for (let tries = 0; tries < 600; tries++) {
        try {
          const view = await core.call<CheckoutView>('charge', { storeId: STORE, checkoutId: plan.checkout, amountCents: plan.amountCents });
          return view.recent.find((s) => s.amount_cents === plan.amountCents)?.sale_id ?? (await findByAmount())?.sale_id ?? null;
        } catch (err) {
          if (err instanceof CoreGone) {
            // Killed mid-charge: if its intent was journaled, the restarted core resumes it.
            const journaled = await findByAmount();
            if (journaled) return journaled.sale_id;
            continue;
          }
          if ((err as { code?: string }).code === 'conflict' || (err as { code?: string }).code === 'not_ready') {
            await sleep(100);
            continue;
          }
          // A definite refusal: journaled as a failed sale, nothing to pay.
          return (await findByAmount())?.sale_id ?? null;
        }
      }
      throw new Error(`sale ${plan.index} (checkout ${plan.checkout}) could not be rung up: the previous create stayed in flight`);
    };

    const pay = (body: Record<string, unknown>, plan: SalePlan): Promise<boolean> => payAtService(svc, counters, body, plan);

    /** The cashier waits for the sale to leave pending before the next one, up to a bound. */
    const waitSettled = async (saleId: string) => {
      const until = performance.now() + 10_000;
      while (performance.now() < until) {
        const sale = await core.read<Sale | null>('sale', { saleId });
        if (sale && !OPEN.has(sale.status)) return;
        await sleep(40);
      }
      counters.waitsTimedOut += 1;
    };

    const payLate = async (prev: { plan: SalePlan; saleId: string | null }) => {
      let pixId = prev.saleId === null ? undefined : (await core.read<Sale | null>('sale', { saleId: prev.saleId }))?.pix_id;
      if (pixId === undefined) {
        // The core never learned its ids (its create stayed unresolved): the payer has the QR all the same.
        const rows = (await svc('GET', `/_sandbox/sales?store_id=${STORE}&checkout_id=${prev.plan.checkout}`)).body as ServiceSaleRecord[];
        pixId = rows.find((r) => r.amount_brl === formatCents(prev.plan.amountCents))?.pix_id;
      }
      if (pixId === undefined) return;
      if (await pay({ late_for: pixId, amount: formatCents(prev.plan.paidCents) }, prev.plan)) counters.late += 1;
    };

    /** A supervisor refunds part of a paid sale; whatever the service or a kill does to the answer. */
    const refundSale = async (saleId: string, refund: RefundPlan) => {
      if (refund.fault !== null) {
        await control(svc, 'POST', '/_sandbox/faults', { target: 'route', ...REFUND_ROUTE, fault: refund.fault, count: 1 });
        refundCounters.faulted += 1;
      }
      refundCounters.asked += 1;
      try {
        await core.call('refund', { saleId, amountCents: refund.cents });
      } catch (err) {
        // Killed mid-refund (the journal holds the intent or nothing), or refused in words
        // (the sale was not paid after all): the audit holds whatever the service did.
        if (!(err instanceof CoreGone) && !isCoreAnswer(err)) throw err;
      }
    };

    const worker = async (checkout: number) => {
      let owedLate: { plan: SalePlan; saleId: string | null } | null = null;
      for (const plan of plans) {
        if (plan.checkout !== checkout) continue;
        if (performance.now() > salesDeadline) break;
        counters.salesRun += 1;
        if (plan.killAfterMs !== null) {
          const after = plan.killAfterMs;
          // Handled here and awaited after the workers: a restart that fails ends the campaign with its error.
          const kill = sleep(after).then(() => core.killAndRestart());
          kill.catch(() => undefined);
          kills.push(kill);
        }
        if (plan.clockSeconds >= 60) await passTime(plan.clockSeconds);
        else if (plan.clockSeconds > 0) await advanceClock(plan.clockSeconds);
        while (gate) await gate;
        if (plan.routeFault) {
          await control(svc, 'POST', '/_sandbox/faults', { target: 'route', ...plan.routeFault });
          counters.routeFaults += 1;
        }
        charging += 1;
        const saleId = await ringUp(plan).finally(() => (charging -= 1));
        const late = owedLate;
        owedLate = null;
        if (late && plan.lateFirst) await payLate(late);
        if (plan.fate === 'paid' || plan.fate === 'mismatch') {
          const body: Record<string, unknown> = { store_id: STORE, checkout_id: checkout };
          if (plan.fate === 'mismatch') body.amount = formatCents(plan.paidCents);
          if ((await pay(body, plan)) && saleId !== null) {
            counters.paid += 1;
            await waitSettled(saleId);
            if (plan.refund !== null) await refundSale(saleId, plan.refund);
          }
        } else if (plan.fate === 'late' || plan.fate === 'late_mismatch') {
          // Paid once the next sale on the checkout displaced it (reference 4.5 rule 5).
          owedLate = { plan, saleId };
        }
        if (late && !plan.lateFirst) await payLate(late);
      }
    };

    log(`seed ${options.seed}: ${plans.length} sales on ${CHECKOUTS} checkouts, ${plans.filter((p) => p.killAfterMs !== null).length} kills planned`);
    const progress = setInterval(() => log(`… ${counters.salesRun} sales, ${core.kills} kills, ${Math.round((performance.now() - started) / 1000)} s`), 10_000);
    try {
      await Promise.all(Array.from({ length: CHECKOUTS }, (_, k) => worker(k + 1)));
      await Promise.all(kills);
    } finally {
      clearInterval(progress);
    }

    // ── Drain: faults off, every retry and poll brought due, until nothing changes. ─────
    const drainStarted = performance.now();
    const drainDeadline = Math.min(drainStarted + options.drainSeconds * 1_000, hardDeadline - 20_000);
    await control(svc, 'DELETE', '/_sandbox/faults', {});
    // Past every sale's 5-minute life and the minute after it when its last Tx Status read is
    // made (checkout.ts EXPIRY_GRACE_MS): what was left pending expires, here and at the service.
    await passTime(361);
    let drained = false;
    let lastEntries = -1;
    let still = 0;
    while (performance.now() < drainDeadline) {
      await core.read('tick');
      const events = (await svc('GET', '/_sandbox/events')).body as Array<{ state: string; next_attempt_at: string | null }>;
      const waiting = events.filter((e) => e.state === 'pending' || e.state === 'in_flight' || e.state === 'held');
      const status = await core.read<{ journal: { entries: number } }>('status');
      const entries = status.journal.entries;
      still = waiting.length === 0 && entries === lastEntries ? still + 1 : 0;
      lastEntries = entries;
      // Three quiet passes, each 31 s or more of clock later: past every poll interval and create retry.
      if (still >= 2) {
        drained = true;
        break;
      }
      const now = Date.now() + clockOffsetMs;
      const nextRetry = Math.min(...waiting.filter((e) => e.next_attempt_at !== null).map((e) => Date.parse(e.next_attempt_at as string) - now));
      // To the next webhook retry (contract 4's schedule), or past the longest poll interval.
      await advanceClock(Number.isFinite(nextRetry) && nextRetry > 0 ? Math.ceil(nextRetry / 1000) + 1 : 31);
      await sleep(1_000);
    }
    // A supervisor answers every refund left not confirmed, from the service's record of the
    // charge, as a person would read it (its refunds, the payer's statement).
    for (let round = 0; round < 3; round++) {
      const waiting = await core.read<{ saleId: string; refundId: string; amountCents: number; serviceId: string | null }[]>('unconfirmedRefunds');
      if (waiting.length === 0) break;
      const rows = (await svc('GET', `/_sandbox/sales?store_id=${STORE}`)).body as ServiceSaleRecord[];
      for (const w of waiting) {
        const sale = await core.read<Sale | null>('sale', { saleId: w.saleId });
        const atService = wireCents(rows.find((r) => r.service_id === w.serviceId)?.refunded_brl ?? '0.00');
        const known = sale === null ? 0 : refundsMadeCents(sale);
        try {
          if (atService >= known + w.amountCents) {
            await core.call('refundWasMade', { saleId: w.saleId, refundId: w.refundId });
            refundCounters.wasMade += 1;
          } else {
            await core.call('refundSendAgain', { saleId: w.saleId, refundId: w.refundId, amountCents: w.amountCents });
            refundCounters.sentAgain += 1;
          }
        } catch (err) {
          if (!(err instanceof CoreGone) && !isCoreAnswer(err)) throw err;
        }
      }
      await core.read('tick');
    }
    const drainMs = performance.now() - drainStarted;
    log(drained ? `drained in ${Math.round(drainMs / 1000)} s` : `the drain's bound passed before the core stopped changing (${Math.round(drainMs / 1000)} s)`);

    // ── Audit ──────────────────────────────────────────────────────────────────────────
    const unmatched = await core.read<UnmatchedPayment[]>('unmatched');
    await core.close();
    host = null;
    const journal = await readJournal(join(dataDir, 'journal'));
    const journalSales = journal.sales;
    const service = (await svc('GET', `/_sandbox/sales?store_id=${STORE}`)).body as ServiceSaleRecord[];
    const audit = auditJournal({ service, journal: journalSales, unmatched });
    const attempts = (await svc('GET', '/_sandbox/webhooks')).body as Array<{ webhook_id: string; duplicate?: boolean }>;
    const events = (await svc('GET', '/_sandbox/events')).body as Array<{ webhook_id: string; state: string }>;
    const failedCount = Object.values(audit.counts).reduce((a, b) => a + b, 0);
    if (failedCount > 0 || core.crashes.length > 0 || audit.unresolvedSales > 0 || !journal.verified.ok) {
      keep = true;
      // Beside the journal, the sandbox's side of the story, for whoever reads the findings.
      await writeFile(join(dataDir, 'sandbox-sales.json'), JSON.stringify(service, null, 1));
      await writeFile(join(dataDir, 'sandbox-events.json'), JSON.stringify(events, null, 1));
      await writeFile(join(dataDir, 'sandbox-webhooks.json'), JSON.stringify(attempts, null, 1));
    }
    return {
      seed: options.seed,
      killEvery: options.killEvery,
      salesPlanned: plans.length,
      salesRun: counters.salesRun,
      kills: core.kills,
      restartMs: { p50: median(core.restartsMs), max: Math.max(0, ...core.restartsMs) },
      crashes: core.crashes,
      failedStarts: core.failedStarts,
      routeFaults: counters.routeFaults,
      webhooks: webhookTally(attempts, events, counters),
      clockAdvances: counters.clockAdvances,
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
    await host?.close().catch(() => undefined);
    await sandbox?.stop().catch(() => undefined);
    // Whatever is still alive was started here: SIGKILL it by its pid.
    for (const child of tracked) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (!keep) await rm(dataDir, { recursive: true, force: true });
  }
}

/** A wire amount in cents (the sandbox's listing gives two places); 0 when it cannot be read. */
function wireCents(brl: string): number {
  return wireBrlCents(brl) ?? 0;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : (sorted[Math.floor((sorted.length - 1) / 2)] as number);
}

/** The sandbox's control API (contract 7) always gets JSON; an answer outside 2xx is the campaign's own bug. */
/** Every sale of the campaign's checkouts, as the app's own journal module folds them, and whether its hash chain holds. */
async function readJournal(dir: string): Promise<{ sales: Sale[]; verified: VerifyResult }> {
  const journal = await openJournal<SaleRow>({ dir, clock: systemClock, reduceSale: reduceSaleRow, saleKeys: saleRowKeys, operatorActions: OPERATOR_ACTIONS });
  try {
    const sales: Sale[] = [];
    for (let c = 1; c <= CHECKOUTS; c++) sales.push(...(await journal.sales.byCheckout(STORE, c)).map((row) => row.sale));
    return { sales, verified: await journal.verify() };
  } finally {
    await journal.close();
  }
}
