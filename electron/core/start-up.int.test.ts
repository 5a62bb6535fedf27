import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { composeCore } from '../compose.ts';
import { systemClock } from '../shared/clock.ts';
import { loadConfig } from './config.ts';
import type { Core } from './core.ts';
import { memoryLogger } from './log.ts';
import { newSession } from './operators/operators.ts';
import { managerSession, TEST_PIN } from './operators/fixtures/sign-in.ts';
import { serviceControl } from './terminal/fixtures/service.ts';

/**
 * Issue 13, point 8, through the whole core: what a start needs besides open sales (the
 * operators, the payments no sale holds, the settlements already journaled) comes from the
 * journal's checkpointed projections, so a start after days of work reads only the last
 * day's segment, and still knows everything older.
 */
const dirs: string[] = [];
const cores: Core[] = [];
afterAll(async () => {
  for (const core of cores) await core.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function start(dir: string): Promise<Core> {
  const core = await composeCore(loadConfig({ POS_DATA_DIR: dir, POS_LANG: 'en' }, []), { log: memoryLogger(systemClock) });
  cores.push(core);
  await core.start();
  return core;
}

const DAY_S = 86_400;

it('a start after days of work reads only the last day, and knows the operators, payments kept apart and settlements of earlier days', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pos-start-up-'));
  dirs.push(dir);
  let core = await start(dir);
  const svc = serviceControl(core.status().service.baseUrl ?? '');
  const now = () => Math.floor(core.clock.now() / 1000);

  // Day 1: the first manager, a payment for ids no sale has, a settlement.
  await managerSession(core, 'Marta');
  const foreign = {
    event: 'charge.paid',
    pix_id: 'pix_from_another_system',
    service_id: 'svc_from_another_system',
    external_id: null,
    amount_brl: '21.00',
    paid_at: new Date(core.clock.now()).toISOString(),
    e2e_id: 'E0000000000000000000000000start1',
    store_id: 1,
    checkout_id: 1,
  };
  expect(await core.terminal.acceptWebhook({ webhookId: 'msg_foreign_day1', timestampSec: now(), payload: foreign })).toBe('recorded');
  expect(await core.terminal.acceptWebhook({ webhookId: 'msg_settled_day1', timestampSec: now(), payload: { event: 'settlement.settled', settlement_id: 7001 } })).toBe('recorded');
  const keptApart = core.terminal.unmatchedPayments();
  expect(keptApart).toHaveLength(1);

  // Days 2 to 9: the store goes on selling; each day is a segment of its own.
  for (let day = 0; day < 8; day++) {
    await svc('POST', '/_sandbox/clock/advance', { seconds: DAY_S });
    await core.charge({ storeId: 1, checkoutId: 1, by: 'Marta', amountCents: 500 + day });
  }
  const total = core.journal.status().lastSeq;
  await core.stop();

  core = await start(dir);
  const opened = core.journal.status().opened;
  expect(opened.checkpointIgnored).toBeNull();
  expect(opened.checkpointSeq).toBe(total);
  // Only the last day's segment was read: not the days before it.
  expect(opened.entriesRead).toBeGreaterThan(0);
  expect(opened.entriesRead).toBeLessThan(total);
  expect(core.journal.status().segments).toBeGreaterThanOrEqual(9);
  // Nor did the start look through history: only the checkout's newest few sales (the
  // follow-up's planning) may reach into the newest past days, never back to day 1.
  const { indexLoads, sealedSegments } = await core.journal.storeStats();
  expect(sealedSegments).toBeGreaterThanOrEqual(8);
  expect(indexLoads).toBeLessThanOrEqual(3);

  // And yet the start knows what happened on day 1.
  expect(core.terminal.unmatchedPayments()).toEqual(keptApart);
  expect(core.status().unmatchedPayments).toBe(1);
  await expect(core.operators.signIn(newSession(), { name: 'Marta', pin: TEST_PIN })).resolves.toMatchObject({ name: 'Marta', role: 'manager' });
  // A settlement is journaled once per settlement_id, whatever its webhook-id (reference 6.1).
  expect(await core.terminal.acceptWebhook({ webhookId: 'msg_settled_again', timestampSec: now(), payload: { event: 'settlement.settled', settlement_id: 7001 } })).toBe('duplicate');
  // A webhook-id from days ago is still a duplicate (history read on demand).
  expect(await core.terminal.acceptWebhook({ webhookId: 'msg_foreign_day1', timestampSec: now(), payload: foreign })).toBe('duplicate');
}, 120_000);
