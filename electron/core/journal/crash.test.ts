import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { JournalLockedError, openJournal } from './journal.ts';
import type { JournalPort } from './port.ts';
import { reduceTestSale } from './fixtures/test-sale.ts';
import { mulberry32 } from '../../shared/prng.ts';

/**
 * The promise behind "nothing is lost": whatever a writer was told is durable survives a
 * SIGKILL at any point. A child process (fixtures/crash-writer.ts) writes and prints every
 * acknowledgement; this test kills it at random moments and reopens the journal.
 */

const WRITER = fileURLToPath(new URL('./fixtures/crash-writer.ts', import.meta.url));
// Random kill points, reproducible: JOURNAL_CRASH_SEED=<n> replays a failing run.
const SEED = Number(process.env.JOURNAL_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));

interface WriterRun {
  pid: number;
  lines: string[];
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs the writer; once it has printed `killAfterAcks` acks, SIGKILLs it after `delayMs`. */
function runWriter(dir: string, round: number, mode: 'loop' | 'torn', redeliver: string[], killAfterAcks = Infinity, delayMs = 0, whileRunning?: (pid: number) => Promise<void>): Promise<WriterRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, dir, String(round), mode, redeliver.join(',')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    let acks = 0;
    let killing = false;
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`writer round ${round} made no progress (seed ${SEED}): ${stderr}`));
    }, 25_000);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      acks = out.split('\n').filter((l) => l.startsWith('ack ')).length;
      if (!killing && acks >= killAfterAcks) {
        killing = true;
        const kill = () => setTimeout(() => child.kill('SIGKILL'), delayMs);
        if (whileRunning) whileRunning(child.pid!).then(kill, (err: unknown) => {
          child.kill('SIGKILL');
          reject(err as Error);
        });
        else kill();
      }
    });
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      clearTimeout(guard);
      // Only whole lines count: a line the kill cut short was never fully printed.
      const lines = out.split('\n').slice(0, -1);
      resolve({ pid: child.pid!, lines, signal, stderr });
    });
  });
}

interface Acked {
  created: Map<string, number>;
  paid: Map<string, number>;
}

function parseAcks(lines: string[], into: Acked): void {
  for (const line of lines) {
    const m = /^ack (\d+) (created|paid) (\S+)$/.exec(line);
    if (!m) continue;
    into[m[2] as 'created' | 'paid'].set(m[3]!, Number(m[1]));
  }
}

/** Every acknowledged write is in the reopened journal, and every sale is in its true state. */
async function expectEverythingAcked(j: JournalPort, acked: Acked, context: string): Promise<void> {
  const status = j.status();
  const all = await j.eventsBetween(0, Number.MAX_SAFE_INTEGER);
  expect(all.map((e) => e.seq), context).toEqual(Array.from({ length: status.lastSeq }, (_, i) => i + 1));
  const bySeq = new Map(all.map((e) => [e.seq, e]));
  for (const [saleId, seq] of acked.created) {
    expect(bySeq.get(seq), `${context}: created ${saleId} at seq ${seq}`).toMatchObject({ type: 'sale.created', data: { sale_id: saleId } });
    expect((await j.sales.get(saleId))?.sale_id, `${context}: sale ${saleId}`).toBe(saleId);
  }
  for (const [saleId, seq] of acked.paid) {
    expect(bySeq.get(seq), `${context}: paid ${saleId} at seq ${seq}`).toMatchObject({ type: 'charge.paid', data: { sale_id: saleId, webhook_id: `wh-${saleId}` } });
    expect((await j.sales.get(saleId))?.status, `${context}: sale ${saleId} paid`).toBe('paid');
    expect(await j.webhookSeq(`wh-${saleId}`)).toBe(seq);
  }
  // At-least-once delivery, exactly-once journal: no webhook-id twice.
  const hookIds = (await j.eventsOfType('charge.paid')).map((e) => e.data.webhook_id);
  expect(new Set(hookIds).size, `${context}: duplicate webhook entries`).toBe(hookIds.length);
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-crash-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe(`crash safety (seed ${SEED})`, () => {
  it('SIGKILL at random points: every acknowledged entry survives, the chain verifies, redeliveries stay duplicates', async () => {
    const random = mulberry32(SEED);
    const acked: Acked = { created: new Map(), paid: new Map() };
    const rounds = 6;
    let tornTails = 0;
    for (let round = 1; round <= rounds; round++) {
      // Redeliver webhooks acknowledged before, and those that may have been in flight.
      const known = [...acked.paid.keys()].slice(-4).map((s) => `wh-${s}`);
      const inFlight = [...acked.created.keys()].filter((s) => !acked.paid.has(s)).slice(-4).map((s) => `wh-${s}`);
      const run = await runWriter(dir, round, 'loop', [...known, ...inFlight], 1 + Math.floor(random() * 250), Math.floor(random() * 15));
      const context = `round ${round}, seed ${SEED}`;
      expect(run.signal, `${context}: ${run.stderr}`).toBe('SIGKILL');
      expect(run.lines[0], context).toMatch(/^open \d+ (healthy|torn-tail-repaired)$/);
      for (const id of known) expect(run.lines, context).toContain(`redelivered ${id} duplicate`);
      parseAcks(run.lines, acked);

      const j = await openJournal({ dir, clock: systemClock, reduceSale: reduceTestSale });
      try {
        const status = j.status();
        expect(['healthy', 'torn-tail-repaired'], `${context}: ${JSON.stringify(status)}`).toContain(status.state);
        if (status.state === 'torn-tail-repaired') tornTails++;
        expect(await j.verify(), context).toEqual({ ok: true, entries: status.lastSeq });
        await expectEverythingAcked(j, acked, context);
      } finally {
        await j.close();
      }
    }
    expect(acked.created.size).toBeGreaterThanOrEqual(rounds);
    console.info(`journal crash test: ${acked.created.size} sales acknowledged over ${rounds} kills, ${tornTails} torn tails repaired (seed ${SEED})`);
  });

  it('a write cut short by the kill: the torn tail is reported, cut away, and writing goes on', async () => {
    const run = await runWriter(dir, 1, 'torn', []);
    expect(run.signal, run.stderr).toBe('SIGKILL');
    const tornLine = run.lines.find((l) => l.startsWith('torn '));
    expect(tornLine).toBeDefined();
    const segment = tornLine!.slice('torn '.length);
    const acked: Acked = { created: new Map(), paid: new Map() };
    parseAcks(run.lines, acked);
    expect(acked.created.size).toBe(20);
    expect(acked.paid.size).toBe(20);

    let j = await openJournal({ dir, clock: systemClock, reduceSale: reduceTestSale });
    try {
      const status = j.status();
      expect(status).toMatchObject({ state: 'torn-tail-repaired', lastSeq: 40, tornTail: { segment, line: 41, bytes: `{"seq":41,"prev":"${'ab'.repeat(16)}`.length } });
      expect((await readFile(join(dir, segment), 'utf8')).endsWith('\n')).toBe(true);
      await expectEverythingAcked(j, acked, 'torn');
      const { entries } = await j.append([{ type: 'sale.created', data: { sale_id: 'after', checkout_id: 1, amount_cents: 1 } }]);
      expect(entries[0]!.seq).toBe(41);
      expect(await j.verify()).toEqual({ ok: true, entries: 41 });
    } finally {
      await j.close();
    }
    j = await openJournal({ dir, clock: systemClock, reduceSale: reduceTestSale });
    expect(j.status()).toMatchObject({ state: 'healthy', lastSeq: 41 });
    await j.close();
  });

  it('a running writer holds the dir: another process cannot open it until the writer dies', async () => {
    let refusedFor: number | null = null;
    const run = await runWriter(dir, 1, 'loop', [], 1, 0, async (pid) => {
      const attempt = openJournal({ dir, clock: systemClock, reduceSale: reduceTestSale });
      await expect(attempt).rejects.toBeInstanceOf(JournalLockedError);
      refusedFor = ((await attempt.catch((e: unknown) => e)) as JournalLockedError).pid;
      expect(refusedFor).toBe(pid);
    });
    expect(run.signal).toBe('SIGKILL');
    expect(refusedFor).toBe(run.pid);
    // The dead writer's lock is stale now: taken over.
    const j = await openJournal({ dir, clock: systemClock, reduceSale: reduceTestSale });
    expect(j.status().state).not.toBe('corrupt');
    await j.close();
  });
});
