import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { JournalPort } from '../journal/port.ts';
import { openJournal } from '../journal/journal.ts';
import { memoryLogger } from '../log.ts';
import type { Caller } from '../operators/operators.ts';
import { hashPin } from '../operators/pin.ts';
import { scryptCode, type SlowCodeHash } from './code-hash.ts';
import { Devices, PAIRING_CODE_TTL_MS, SALT_ROTATION_MS, WRONG_CODES_BEFORE_VOID, WRONG_CODES_PER_ADDRESS } from './devices.ts';
import { DEVICE_PERSON_ACTIONS, DEVICES_PROJECTION, devicesProjection, PAIRING_OFFERS_PROJECTION, pairingOffersProjection } from './registry.ts';

/** The register of devices over a real journal in a temp dir, on a clock the test moves. */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const MARTA: Caller = { id: 'op-marta', name: 'Marta', role: 'manager' };
const TILL_2 = { kind: 'till', storeId: 1, checkoutId: 2, name: 'Till 2' } as const;

async function store(clock = new ManualClock()) {
  const dir = await mkdtemp(join(tmpdir(), 'pos-devices-'));
  const open = () => openJournal<object>({ dir, clock, reduceSale: () => undefined, operatorActions: DEVICE_PERSON_ACTIONS, projections: { [DEVICES_PROJECTION]: devicesProjection, [PAIRING_OFFERS_PROJECTION]: pairingOffersProjection } });
  let journal: JournalPort<object> = await open();
  cleanups.push(async () => {
    await journal.close();
    await rm(dir, { recursive: true, force: true });
  });
  const log = memoryLogger(clock);
  const make = (slowHash?: SlowCodeHash) => {
    const devices = new Devices({ journal, clock, log, slowHash });
    devices.load();
    return devices;
  };
  return {
    clock,
    log,
    dir,
    make,
    journal: () => journal,
    async reopen(slowHash?: SlowCodeHash) {
      await journal.close();
      journal = await open();
      return make(slowHash);
    },
    async journalText() {
      const files = (await readdir(join(dir))).filter((f) => f.endsWith('.jsonl'));
      return (await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')))).join('\n');
    },
  };
}

describe('pairing a device', () => {
  it('gives an 8-digit code that pairs one device, once, on the checkout the manager chose', async () => {
    const s = await store();
    const devices = s.make();
    const offer = await devices.startPairing(MARTA, TILL_2);
    expect(offer.code).toMatch(/^\d{8}$/);
    expect(offer.expiresAt).toBe(s.clock.now() + PAIRING_CODE_TTL_MS);

    const typed = `${offer.code.slice(0, 4)} ${offer.code.slice(4)}`;
    const paired = await devices.pair(typed, '127.0.0.2');
    expect(paired.credential).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(paired.device).toMatchObject({ kind: 'till', storeId: 1, checkoutId: 2, name: 'Till 2' });
    expect(devices.authenticate(paired.credential)).toEqual(paired.device);

    await expect(devices.pair(offer.code, '127.0.0.3')).rejects.toMatchObject({ code: 'pairing_refused', params: { reason: 'used' } });
  });

  it('refuses a nameless device, a name too long and a store or checkout that is no number, naming the field, and offers nothing', async () => {
    const s = await store();
    const devices = s.make();
    const before = await s.journalText();
    for (const [input, problem, field] of [
      [{ ...TILL_2, name: ' \r\n\u00a0' }, 'device_name_empty', 'name'],
      [{ ...TILL_2, name: 'x'.repeat(61) }, 'device_name_too_long', 'name'],
      [{ ...TILL_2, storeId: 0 }, 'pairing_store', 'storeId'],
      [{ ...TILL_2, storeId: 2 ** 31 }, 'pairing_store', 'storeId'],
      [{ ...TILL_2, checkoutId: 1.5 }, 'pairing_checkout', 'checkoutId'],
      [{ ...TILL_2, checkoutId: Number.NaN }, 'pairing_checkout', 'checkoutId'],
    ] as const) {
      await expect(devices.startPairing(MARTA, input)).rejects.toMatchObject({ code: 'invalid_argument', params: { problem, field } });
    }
    expect(await s.journalText()).toBe(before);
    // The longest name, with spaces around it, is taken and kept trimmed.
    const offer = await devices.startPairing(MARTA, { ...TILL_2, name: ` ${'x'.repeat(60)} ` });
    await expect(devices.pair(offer.code, '127.0.0.2')).resolves.toMatchObject({ device: { name: 'x'.repeat(60) } });
  });

  it('refuses a wrong code and an expired one, each with its reason', async () => {
    const s = await store();
    const devices = s.make();
    const offer = await devices.startPairing(MARTA, TILL_2);
    const wrong = offer.code === '00000000' ? '11111111' : '00000000';
    await expect(devices.pair(wrong, '127.0.0.2')).rejects.toMatchObject({ code: 'pairing_refused', params: { reason: 'wrong_code' } });
    s.clock.advance(PAIRING_CODE_TTL_MS);
    await expect(devices.pair(offer.code, '127.0.0.2')).rejects.toMatchObject({ code: 'pairing_refused', params: { reason: 'expired' } });
    expect(devices.list()).toEqual([]);
  });

  it('makes one address wait after a few wrong codes, and voids every live code after many', async () => {
    const s = await store();
    const devices = s.make();
    const offer = await devices.startPairing(MARTA, TILL_2);
    const wrongCodes = Array.from({ length: WRONG_CODES_BEFORE_VOID }, (_, i) => String(i).padStart(8, '9')).filter((c) => c !== offer.code);
    for (const code of wrongCodes.slice(0, WRONG_CODES_PER_ADDRESS)) await expect(devices.pair(code, '10.0.0.9')).rejects.toMatchObject({ params: { reason: 'wrong_code' } });
    // Even the right code waits: the address guessed too often.
    await expect(devices.pair(offer.code, '10.0.0.9')).rejects.toMatchObject({ params: { reason: 'too_many_attempts' } });
    s.clock.advance(60_000);

    // Guesses from many addresses still add up: past the limit every live code is void.
    for (const [i, code] of wrongCodes.slice(WRONG_CODES_PER_ADDRESS).entries()) await devices.pair(code, `10.0.1.${i}`).catch(() => undefined);
    for (let i = 0; wrongCodes.length + i < WRONG_CODES_BEFORE_VOID + 1; i++) await devices.pair(`8${String(i).padStart(7, '0')}`, `10.0.2.${i}`).catch(() => undefined);
    await expect(devices.pair(offer.code, '127.0.0.2')).rejects.toMatchObject({ params: { reason: 'too_many_attempts' } });

    // A new code from the manager works.
    const next = await devices.startPairing(MARTA, TILL_2);
    await expect(devices.pair(next.code, '127.0.0.2')).resolves.toMatchObject({ device: { name: 'Till 2' } });
  });

  it('keeps only the SHA-256 of the credential and never the code, with who offered and who revoked', async () => {
    const s = await store();
    const devices = s.make();
    const offer = await devices.startPairing(MARTA, TILL_2);
    const { credential, device } = await devices.pair(offer.code, '127.0.0.2');
    await devices.revoke(MARTA, device.id);
    const text = await s.journalText();
    expect(text).not.toContain(credential);
    expect(text).not.toContain(offer.code);
    expect(text).toContain(createHash('sha256').update(credential).digest('hex'));
    const types = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; data: { by?: string } });
    expect(types.filter((e) => e.type.startsWith('device.')).map((e) => [e.type, e.data.by])).toEqual([
      ['device.pairing_offered', 'Marta'],
      ['device.paired', 'Marta'],
      ['device.revoked', 'Marta'],
    ]);
  });
});

describe('a paired device', () => {
  it('is known again after a restart, and a revoked one is not', async () => {
    const s = await store();
    const devices = s.make();
    const a = await devices.pair((await devices.startPairing(MARTA, TILL_2)).code, '127.0.0.2');
    const b = await devices.pair((await devices.startPairing(MARTA, { ...TILL_2, checkoutId: 1, name: 'Till 1' })).code, '127.0.0.3');
    await devices.revoke(MARTA, b.device.id);

    const again = await s.reopen();
    expect(again.authenticate(a.credential)).toEqual(a.device);
    expect(again.authenticate(b.credential)).toBeNull();
    expect(again.active(b.device.id)).toBeNull();
    expect(again.list().map((d) => [d.name, d.revokedBy])).toEqual([
      ['Till 2', null],
      ['Till 1', 'Marta'],
    ]);
    await expect(again.revoke(MARTA, b.device.id)).rejects.toMatchObject({ code: 'conflict', params: { reason: 'device_revoked' } });
  });

  it('tells listeners at once when it is revoked, and is seen while connected', async () => {
    const s = await store();
    const devices = s.make();
    const { device } = await devices.pair((await devices.startPairing(MARTA, TILL_2)).code, '127.0.0.2');
    const revoked: string[] = [];
    devices.onRevoked((id) => revoked.push(id));

    const close = devices.connected(device.id);
    s.clock.advance(5_000);
    expect(devices.list()[0]).toMatchObject({ online: true, lastSeenAt: s.clock.now() });
    close();
    const leftAt = s.clock.now();
    s.clock.advance(60_000);
    expect(devices.list()[0]).toMatchObject({ online: false, lastSeenAt: leftAt });

    await devices.revoke(MARTA, device.id);
    expect(revoked).toEqual([device.id]);
    expect(devices.checkouts()).toEqual([]);
  });

  it('refuses a credential that is not one (wrong shape or unknown)', async () => {
    const s = await store();
    const devices = s.make();
    await devices.pair((await devices.startPairing(MARTA, TILL_2)).code, '127.0.0.2');
    expect(devices.authenticate('')).toBeNull();
    expect(devices.authenticate('x'.repeat(43))).toBeNull();
    expect(devices.authenticate('../../etc/passwd')).toBeNull();
  });
});

describe('issue 23: a pairing code outlives the core that made it', () => {
  it('a code made before a restart pairs after it, once: a used code pairs at no core again', async () => {
    const s = await store();
    const offer = await s.make().startPairing(MARTA, TILL_2);
    const after = await s.reopen();
    const paired = await after.pair(offer.code, '127.0.0.2');
    expect(paired.device).toMatchObject({ kind: 'till', storeId: 1, checkoutId: 2, name: 'Till 2' });
    expect(after.list()).toMatchObject([{ name: 'Till 2', pairedBy: 'Marta' }]);
    const third = await s.reopen();
    await expect(third.pair(offer.code, '127.0.0.3')).rejects.toMatchObject({ code: 'pairing_refused', params: { reason: 'used' } });
    expect(third.authenticate(paired.credential)).toEqual(paired.device);
  });

  it('an expired code pairs at no core, and codes voided by too many wrong ones stay void', async () => {
    const s = await store();
    const devices = s.make();
    const expiring = await devices.startPairing(MARTA, TILL_2);
    s.clock.advance(PAIRING_CODE_TTL_MS);
    const live = await devices.startPairing(MARTA, { ...TILL_2, name: 'Till 3' });
    for (let i = 0; i < WRONG_CODES_BEFORE_VOID; i++) {
      const code = `7${String(i).padStart(7, '0')}`;
      if (code !== live.code) await devices.pair(code, `10.0.3.${i}`).catch(() => undefined);
    }
    const after = await s.reopen();
    await expect(after.pair(expiring.code, '127.0.0.2')).rejects.toMatchObject({ params: { reason: 'expired' } });
    await expect(after.pair(live.code, '127.0.0.2')).rejects.toMatchObject({ params: { reason: 'too_many_attempts' } });
    expect(after.list()).toEqual([]);
  });

  it('journals the code only as a slow salted hash, with its expiry and who made it', async () => {
    const s = await store();
    const offer = await s.make().startPairing(MARTA, TILL_2);
    const text = await s.journalText();
    expect(text).not.toContain(offer.code);
    // A plain SHA-256 of 8 digits would be read back in a second: not that.
    expect(text).not.toContain(createHash('sha256').update(offer.code).digest('hex'));
    const entry = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> })
      .find((e) => e.type === 'device.pairing_offered');
    expect(entry?.data).toMatchObject({ by: 'Marta', by_id: MARTA.id, expires_at: offer.expiresAt, code_hash: { alg: 'scrypt', n: 32768 } });
  });
});

describe('a typed pairing code costs one slow hash, however many codes are live', () => {
  /** The real scrypt, counted. */
  function counted() {
    const calls = { n: 0 };
    const slowHash: SlowCodeHash = (code, params, bytes) => {
      calls.n++;
      return scryptCode(code, params, bytes);
    };
    return { calls, slowHash };
  }
  const offeredData = (text: string) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; data: { code_hash: { salt: string; hash: string }; salt_since: number } })
      .filter((e) => e.type === 'device.pairing_offered')
      .map((e) => e.data);

  it('pairs the oldest of many live codes, and refuses a wrong one, with one scrypt each, before and after a restart', async () => {
    const s = await store();
    const { calls, slowHash } = counted();
    const devices = s.make(slowHash);
    const codes: string[] = [];
    for (let i = 0; i < 16; i++) {
      codes.push((await devices.startPairing(MARTA, { ...TILL_2, name: `Till ${i + 1}` })).code);
      s.clock.advance(1_000);
    }
    const offered = offeredData(await s.journalText());
    expect(offered).toHaveLength(16);
    expect(new Set(offered.map((o) => o.code_hash.salt)).size).toBe(1);
    expect(new Set(offered.map((o) => o.code_hash.hash)).size).toBe(16);

    calls.n = 0;
    await expect(devices.pair(codes[0] as string, '127.0.0.2')).resolves.toMatchObject({ device: { name: 'Till 1' } });
    expect(calls.n).toBe(1);
    const wrong = ['00000000', '11111111', '22222222'].find((c) => !codes.includes(c)) as string;
    calls.n = 0;
    await expect(devices.pair(wrong, '127.0.0.3')).rejects.toMatchObject({ params: { reason: 'wrong_code' } });
    expect(calls.n).toBe(1);

    // Another core (here the same one restarted) reads the salt from the journal: the codes made before pair, at the same cost.
    const counter = counted();
    const after = await s.reopen(counter.slowHash);
    await expect(after.pair(codes[1] as string, '127.0.0.4')).resolves.toMatchObject({ device: { name: 'Till 2' } });
    await expect(after.pair(codes[0] as string, '127.0.0.5')).rejects.toMatchObject({ params: { reason: 'used' } });
    expect(counter.calls.n).toBe(2);
    // A code it makes goes on with the same salt.
    await after.startPairing(MARTA, { ...TILL_2, name: 'Till 17' });
    expect(new Set(offeredData(await s.journalText()).map((o) => o.code_hash.salt)).size).toBe(1);
  });

  it('draws a new salt after SALT_ROTATION_MS; a code made under the old one still pairs, for one more scrypt', async () => {
    const s = await store();
    const { calls, slowHash } = counted();
    const devices = s.make(slowHash);
    await devices.startPairing(MARTA, { ...TILL_2, name: 'Till 1' });
    s.clock.advance(SALT_ROTATION_MS - PAIRING_CODE_TTL_MS / 2);
    const old = await devices.startPairing(MARTA, TILL_2);
    // An hour after the salt was drawn (with the first code), the next code gets a new one; the one before is still live.
    s.clock.advance(PAIRING_CODE_TTL_MS / 2);
    const fresh = await devices.startPairing(MARTA, { ...TILL_2, name: 'Till 3' });
    const salts = offeredData(await s.journalText()).map((o) => o.code_hash.salt);
    expect(salts[1]).toBe(salts[0]);
    expect(salts[2]).not.toBe(salts[0]);

    calls.n = 0;
    await expect(devices.pair(old.code, '127.0.0.2')).resolves.toMatchObject({ device: { name: 'Till 2' } });
    expect(calls.n).toBe(2);
    calls.n = 0;
    await expect(devices.pair(fresh.code, '127.0.0.3')).resolves.toMatchObject({ device: { name: 'Till 3' } });
    expect(calls.n).toBe(1);
  });

  it('still pairs a live code journaled with its own salt by the version before, trying it alone', async () => {
    const s = await store();
    const { calls, slowHash } = counted();
    const devices = s.make(slowHash);
    const shared = await devices.startPairing(MARTA, TILL_2);
    const oldCode = shared.code === '12345678' ? '87654321' : '12345678';
    // What the version before journaled: the code under a salt of its own, and no salt_since.
    await s.journal().append([
      {
        type: 'device.pairing_offered',
        data: { by: 'Marta', by_id: MARTA.id, offer_id: 'old-offer', kind: 'till', store_id: 1, checkout_id: 1, name: 'Till 1', expires_at: s.clock.now() + PAIRING_CODE_TTL_MS, code_hash: (await hashPin(oldCode)) as never },
      },
    ]);
    const after = await s.reopen(slowHash);
    // Its own salt costs its own scrypt (the newest live salt is tried first); the shared salt one more.
    calls.n = 0;
    await expect(after.pair(shared.code, '127.0.0.3')).resolves.toMatchObject({ device: { name: 'Till 2' } });
    expect(calls.n).toBe(2);
    calls.n = 0;
    await expect(after.pair(oldCode, '127.0.0.2')).resolves.toMatchObject({ device: { name: 'Till 1', checkoutId: 1 } });
    expect(calls.n).toBe(1);
    await expect(after.pair(oldCode, '127.0.0.4')).rejects.toMatchObject({ params: { reason: 'used' } });
  });
});
