/**
 * `npm run soak -- --sales 10000 --seed N`: the fault campaign of campaign.ts, bounded in
 * time, on loopback, stopping by itself. Exit status 0 when every count is 0, 1 when the
 * audit found something (the data dir is kept and named), 2 on a usage error.
 */
import type { ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { runSoak, type SoakResult } from './campaign.ts';
import { CoresSetupError, runCoresSoak, type CoresDatabase, type CoresSoakResult } from './cores.ts';

export const HELP = `usage: npm run soak -- [--sales N] [--seed N] [--minutes M] [--kill-every A-B] [--drain-seconds S] [--keep]
       npm run soak -- --cores N (--database-url URL | --throwaway-database) [the same options]

  --sales N          sales to ring up across 8 printed checkouts (default 10000)
  --seed N           the seed every choice is drawn from (default: random; printed, to replay)
  --minutes M        the whole run ends within M minutes, drain and audit included (default 40);
                     sales stop early when the time runs short, and the report says how many ran
  --kill-every A-B   SIGKILL the core every A to B sales (drawn from the seed; default 40-80,
                     every few seconds at the pace of this 2-core machine)
  --drain-seconds S  bound of the drain before the audit (default 120)
  --keep             keep the data dir (journal, logs) even when every count is 0

A standalone sandbox process and the core as a child process on loopback. The payer pays,
pays another amount, or leaves a sale to be corrected (displaced) or to expire; displaced
sales are paid late; webhooks are duplicated, reordered, delayed and dropped (a dropped one
is a charge.paid: its charge.done still comes); every route the core calls answers
502/503/plain 500 or nothing at times; the sandbox clock jumps (and the core's with it);
and the core is SIGKILLed and restarted on the same data dir. Then a drain (faults off,
clocks moved to every webhook retry and poll, until nothing changes) and an audit of the
journal, read with the app's journal module, against the sandbox's record of every sale
and payment. A payment's identity is its sale (the sandbox pays a sale once) and e2e_id.

  lost               a payment the sandbox recorded that the journal does not hold for the
                     sale the sandbox credited, for the amount paid (absent, on another sale
                     only, only among the unmatched payments, or with another amount)
  doubled            each time a payment is counted beyond once (two records of it on sales,
                     or one on a sale and one among the unmatched payments)
  misattributed      a payment the journal holds on another sale than the one credited
  unflagged mismatch a payment held for the right sale whose amount differs from the sale's
                     with no amount_mismatch or paid_late flag (open or acknowledged) on it
  phantom            a payment the journal counts that the sandbox never recorded
  refund doubled     a charge the service refunded more of than the refunds the journal holds
  refund phantom     a charge the journal holds more refunded of than the service refunded
  refund open        a refund still waiting for an answer after the drain
With --cores N (2 to 9): N server cores (npm run server) on one PostgreSQL database, a
fresh one the campaign makes on the server at --database-url and drops at the end, or one on
a throwaway cluster it starts itself (--throwaway-database, which needs Debian's postgresql
package). Tills over the WebSocket bridge and the sandbox's webhooks reach the cores through
round-robin TCP fronts; exactly one core holds the merchant's lease, the others relay tills
and keep webhooks in the database's inbox. The kills take any core, the active one
included, each started again on its data dir after 2 to 12 s (once the 6-s lease runs out
a standby takes over, unless the killed core is back first and takes its own lease back); the database server is
restarted once, on a throwaway cluster only (a shared server is never restarted: the report
says it was left out). A server core runs on real time, so the clock jumps are left out.
The audit reads the journal the cores wrote, from PostgreSQL, with the app's own adapter.

All eight must be 0. One paid sale in five is refunded in part by a supervisor while the
service ignores refund keys (the sandbox's ignore_key fault) and often loses the answer; a
refund left not confirmed is answered in the drain as a supervisor would, from the service's
record of the charge (It was refunded, or Send again). Also reported: sales whose create the core left unresolved (requested,
uncertain) after the drain, and the journal's own verify of its hash chain. Exit status 0
when every count is 0, no core exited by itself and the chain holds; 1 otherwise (the data
dir is then kept, with the sandbox's listings beside the journal); 2 on a usage error.`;

function parseRange(text: string): [number, number] | null {
  const m = /^(\d+)-(\d+)$/.exec(text);
  if (!m) return null;
  const a = Number(m[1]);
  const b = Number(m[2]);
  return a >= 1 && b >= a ? [a, b] : null;
}

/** The refunds, the audit and its findings: the same lines in the single-core and the several-core report. */
function auditLines(r: Pick<SoakResult, 'audit' | 'refunds' | 'journalVerify'> | Pick<CoresSoakResult, 'audit' | 'refunds' | 'journalVerify'>): string[] {
  const c = r.audit.counts;
  return [
    `  refunds         ${r.audit.refunds.asked} asked for (${r.refunds.faulted} with a lost answer armed), ${r.audit.refunds.made} made; ${r.audit.refunds.answeredByPerson} answered by a supervisor (${r.refunds.wasMade} It was refunded, ${r.refunds.sentAgain} Send again)`,
    `  audit           lost ${c.lost}, doubled ${c.doubled}, misattributed ${c.misattributed}, unflagged mismatch ${c.unflagged_mismatch}, phantom ${c.phantom}, refund doubled ${c.refund_doubled}, refund phantom ${c.refund_phantom}, refund open ${c.refund_open}; ${r.audit.unresolvedSales} sales still unresolved; journal verify ${r.journalVerify.ok ? `ok (${r.journalVerify.entries} entries)` : `BROKEN at entry ${r.journalVerify.firstBroken.seq}`}`,
    ...r.audit.findings.slice(0, 30).map((f) => `    ${f.count}: ${f.detail}`),
    ...(r.audit.findings.length > 30 ? [`    … and ${r.audit.findings.length - 30} more`] : []),
    ...r.audit.unresolved.slice(0, 10).map((u) => `    unresolved: ${u}`),
  ];
}

export function formatSoakReport(r: SoakResult): string {
  const s = (ms: number) => `${Math.round(ms / 1000)} s`;
  return [
    `soak, seed ${r.seed} (npm run soak -- --sales ${r.salesPlanned} --seed ${r.seed} --kill-every ${r.killEvery[0]}-${r.killEvery[1]} replays its choices)`,
    `  sales           ${r.salesRun} of ${r.salesPlanned} rung up on 8 checkouts; ${r.audit.payments} payments at the sandbox (${r.audit.mismatchedPayments} of another amount, ${r.audit.latePayments} late on displaced sales); ${r.payments.refused} payer attempts found no payable sale (expired, not displaced)`,
    `  kills           ${r.kills} SIGKILLs of the core, each restarted on the same data dir (kill to ready: median ${(r.restartMs.p50 / 1000).toFixed(1)} s, longest ${(r.restartMs.max / 1000).toFixed(1)} s); ${r.crashes.length} exits nobody asked for`,
    `  faults          ${r.routeFaults} route faults armed (502/503/500/timeout/lost answer); ${r.webhooks.faults} webhook faults: ${r.webhooks.duplicated} events duplicated, ${r.webhooks.dropped} dropped, ${r.webhooks.delayedOrReordered} delayed or reordered; ${r.clockAdvances} clock jumps`,
    `  service         ${r.webhooks.givenUp} webhook events the sandbox gave up on after every retry`,
    `  duration        ${s(r.durationMs)} (drain ${s(r.drainMs)}${r.drained ? '' : ', bound reached before the core went quiet'}); ${r.waitsTimedOut} waits for Paid ran out`,
    ...auditLines(r),
    ...r.crashes.map((crash) => `  crash: ${crash}`),
    ...r.failedStarts.map((start) => `  slow start: ${start}`),
    ...(r.dataDir ? [`  data dir kept: ${r.dataDir}`] : []),
  ].join('\n');
}

export function formatCoresReport(r: CoresSoakResult): string {
  const s = (ms: number) => `${Math.round(ms / 1000)} s`;
  const back = [...r.kills.map((k) => k.backMs)].sort((a, b) => a - b);
  const median = back.length === 0 ? 0 : (back[Math.floor((back.length - 1) / 2)] as number);
  return [
    `soak over ${r.cores} cores, seed ${r.seed} (npm run soak -- --cores ${r.cores} --sales ${r.salesPlanned} --seed ${r.seed} --kill-every ${r.killEvery[0]}-${r.killEvery[1]} replays its choices)`,
    `  sales           ${r.salesRun} of ${r.salesPlanned} rung up on 8 tills through the front; ${r.audit.payments} payments at the sandbox (${r.audit.mismatchedPayments} of another amount, ${r.audit.latePayments} late on displaced sales); ${r.payments.refused} payer attempts found no payable sale`,
    `  kills           ${r.kills.length} SIGKILLs (${r.kills.filter((k) => k.wasActive).length} of the active core: ${r.kills.map((k) => `${k.core}${k.wasActive ? '*' : ''}`).join(' ')}), each started again on its data dir after 2 to 12 s (kill to listening again: median ${(median / 1000).toFixed(1)} s); ${r.crashes.length} exits nobody asked for; ${r.takeovers.count} takeovers in the journal (${r.takeovers.holders.join(', ') || 'none'}); ${r.leaseLost} times a live core lost the lease; tills connected again by themselves ${r.tillReconnects} times`,
    `  database        a fresh database on the ${r.database} server; PostgreSQL restart: ${r.postgresRestart.done ? r.postgresRestart.note : r.postgresRestart.note || 'not reached'}`,
    `  fronts          till connections per core ${r.front.tills.join('/')}, webhook connections per core ${r.front.webhooks.join('/')}; ${r.webhooks.keptInInbox} webhooks kept in the inbox by a standby`,
    `  faults          ${r.routeFaults} route faults armed; ${r.webhooks.faults} webhook faults: ${r.webhooks.duplicated} events duplicated, ${r.webhooks.dropped} dropped, ${r.webhooks.delayedOrReordered} delayed or reordered; ${r.clockJumpsLeftOut} clock jumps left out (a server core runs on real time)`,
    `  service         ${r.webhooks.givenUp} webhook events the sandbox gave up on after every retry`,
    `  duration        ${s(r.durationMs)} (drain ${s(r.drainMs)}${r.drained ? '' : ', bound reached before the cores went quiet'}); ${r.waitsTimedOut} waits for Paid ran out`,
    ...auditLines(r),
    ...r.crashes.map((crash) => `  crash: ${crash}`),
    ...(r.dataDir ? [`  data dir kept: ${r.dataDir}`] : []),
  ].join('\n');
}

/** Every process the campaign started and that still lives: ended by its pid if the run must stop early. */
const tracked = new Set<ChildProcess>();
function killTracked(): void {
  for (const child of tracked) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        sales: { type: 'string', default: '10000' },
        seed: { type: 'string' },
        minutes: { type: 'string', default: '40' },
        'kill-every': { type: 'string', default: '40-80' },
        'drain-seconds': { type: 'string', default: '120' },
        keep: { type: 'boolean', default: false },
        cores: { type: 'string', default: '1' },
        'database-url': { type: 'string' },
        'throwaway-database': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const sales = Number(values.sales);
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  const minutes = Number(values.minutes);
  const drainSeconds = Number(values['drain-seconds']);
  const killEvery = parseRange(values['kill-every']);
  const cores = Number(values.cores);
  const problems = [
    !Number.isSafeInteger(sales) || sales < 1 || sales > 1_000_000 ? '--sales must be 1 to 1000000' : null,
    !Number.isSafeInteger(seed) || seed < 0 ? '--seed must be a whole number ≥ 0' : null,
    !Number.isFinite(minutes) || minutes < 1 || minutes > 240 ? '--minutes must be 1 to 240' : null,
    !Number.isFinite(drainSeconds) || drainSeconds < 10 || drainSeconds * 1_000 > minutes * 60_000 / 2 ? '--drain-seconds must be at least 10 and at most half of --minutes' : null,
    killEvery === null ? '--kill-every must be A-B with 1 ≤ A ≤ B' : null,
    !Number.isSafeInteger(cores) || cores < 1 || cores > 9 ? '--cores must be 1 to 9' : null,
    cores >= 2 && values['database-url'] === undefined && !values['throwaway-database']
      ? 'Several cores share one PostgreSQL database: give --database-url postgres://user@host:port/db (a database of the campaign’s own is made there and dropped at the end) or --throwaway-database.'
      : null,
    values['database-url'] !== undefined && values['throwaway-database'] ? 'Give --database-url or --throwaway-database, not both.' : null,
    cores < 2 && (values['database-url'] !== undefined || values['throwaway-database']) ? 'A database is for several cores: add --cores 3 (the single-core campaign keeps its journal in files).' : null,
  ].filter((p): p is string => p !== null);
  if (problems.length > 0 || killEvery === null) {
    console.error(`${problems.join('\n')}\n\n${HELP}`);
    return 2;
  }
  if (cores >= 2) {
    const database: CoresDatabase = values['database-url'] === undefined ? 'throwaway' : { url: values['database-url'] };
    console.log(`soak: ${sales} sales over ${cores} cores, seed ${seed}, at most ${minutes} min`);
    let result: CoresSoakResult;
    try {
      result = await runCoresSoak({ cores, sales, seed, minutes, killEvery, drainSeconds, database, keepDataDir: values.keep, tracked, log: (line) => console.log(`soak: ${line}`) });
    } catch (err) {
      if (!(err instanceof CoresSetupError)) throw err;
      console.error(`soak: ${err.message}`);
      return 2;
    }
    console.log(formatCoresReport(result));
    const total = Object.values(result.audit.counts).reduce((a, b) => a + b, 0);
    return total === 0 && result.crashes.length === 0 && result.journalVerify.ok ? 0 : 1;
  }
  console.log(`soak: ${sales} sales, seed ${seed}, at most ${minutes} min`);
  const result = await runSoak({ sales, seed, minutes, killEvery, drainSeconds, keepDataDir: values.keep, tracked, log: (line) => console.log(`soak: ${line}`) });
  console.log(formatSoakReport(result));
  const total = Object.values(result.audit.counts).reduce((a, b) => a + b, 0);
  return total === 0 && result.crashes.length === 0 && result.journalVerify.ok ? 0 : 1;
}

if (import.meta.main) {
  // A hard stop beyond the campaign's own bound: whatever hangs, the run ends.
  const minutesArg = process.argv.indexOf('--minutes');
  const bound = (minutesArg > 0 ? Number(process.argv[minutesArg + 1]) || 40 : 40) * 60_000 + 120_000;
  const watchdog = setTimeout(() => {
    console.error('soak: the run overran its bound; stopping');
    killTracked();
    process.exit(3);
  }, bound);
  watchdog.unref();
  // Whatever escapes the campaign's own handling, its processes still end by their pid.
  process.on('uncaughtException', (error) => {
    console.error(error);
    killTracked();
    process.exit(1);
  });
  process.on('unhandledRejection', (error) => {
    console.error(error);
    killTracked();
    process.exit(1);
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`soak: ${signal}; stopping`);
      killTracked();
      process.exit(130);
    });
  }
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
