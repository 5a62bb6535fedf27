import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import { isDeviceCredential } from '../../shared/device-bridge.ts';
import { DEVICE_NAME_MAX, deviceNameProblem, isRecordId } from '../../shared/form-rules.ts';
import { Mutex } from '../../shared/mutex.ts';
import { CoreError } from '../errors.ts';
import type { JournalPort } from '../journal/port.ts';
import type { Logger } from '../log.ts';
import type { Caller } from '../operators/operators.ts';
import { CODE_KEY_BYTES, newCodeSalt, saltKey, scryptCode, type SlowCodeHash } from './code-hash.ts';
import {
  DEVICE_PAIRED,
  DEVICE_PAIRING_OFFERED,
  DEVICE_PAIRING_VOIDED,
  PAIRING_OFFERS_PROJECTION,
  foldPairingOfferEntry,
  type PairingOfferRecord,
  DEVICE_REVOKED,
  DEVICE_SEEN,
  DEVICES_PROJECTION,
  foldDeviceEntry,
  type DeviceInfo,
  type DeviceKind,
  type DeviceRecord,
} from './registry.ts';

/**
 * The tills and customer displays paired with this store's core (issue 9). A manager offers
 * a one-time pairing code for one checkout; the device that enters it in time receives a
 * credential (256 random bits) of which the core keeps only the SHA-256; every later
 * connection presents it. Issue 23: the offer is journaled with the code's slow salted hash,
 * its expiry and who made it, and its use with the pairing, so a code made at one core pairs
 * at another after a takeover (or at the same one restarted), once, and never after it expires.
 * The offers of an hour share one random salt, journaled with each (code-hash.ts says what
 * that costs against a journal reader), so a typed code is hashed once however many are live.
 */
export const PAIRING_CODE_TTL_MS = 10 * 60_000;
/** Wrong codes one address may try in a minute before it must wait. */
export const WRONG_CODES_PER_ADDRESS = 5;
const ADDRESS_WINDOW_MS = 60_000;
/**
 * Wrong codes, from anywhere, while codes are live: past this every live code is voided,
 * so guessing 10^8 codes can never get far; the manager makes a new one.
 */
export const WRONG_CODES_BEFORE_VOID = 20;
/** How often a device's connection is journaled as "seen" (a reconnect storm writes little). */
const SEEN_EVERY_MS = 10 * 60_000;

export interface DeviceView extends DeviceInfo {
  pairedAt: number;
  pairedBy: string;
  lastSeenAt: number | null;
  online: boolean;
  revokedAt: number | null;
  revokedBy: string | null;
}

export interface PairingOffer {
  code: string;
  expiresAt: number;
}

/** Where tills open the store (the browser shell's addresses) and its certificate. */
export interface Entrance {
  urls: string[];
  fingerprint: string | null;
  /** The store certificate authority's download address and fingerprint, when the shell's certificate is issued by it (issue 25, point 5). */
  storeCa: { url: string; fingerprint: string } | null;
}

export type PairingRefusal = 'wrong_code' | 'expired' | 'used' | 'too_many_attempts';

const REFUSAL_TEXT: Record<PairingRefusal, string> = {
  wrong_code: 'That pairing code is not one this store gave: check the digits, or ask a manager for a new code.',
  expired: 'That pairing code has expired (codes last 10 minutes): ask a manager for a new one.',
  used: 'That pairing code has already been used: each code pairs one device; ask a manager for a new one.',
  too_many_attempts: 'Too many wrong pairing codes: wait a minute, then ask a manager for a new code.',
};

/** What is wrong with what a manager asked to pair, as a refusal that names the field, or null. */
function pairingProblem(input: { storeId: number; checkoutId: number; name: string }): CoreError | null {
  if (!isRecordId(input.storeId)) return new CoreError('invalid_argument', 'Store: choose a store (its number is a whole number from 1).', { problem: 'pairing_store', field: 'storeId' });
  if (!isRecordId(input.checkoutId)) return new CoreError('invalid_argument', 'Checkout: choose a checkout (its number is a whole number from 1).', { problem: 'pairing_checkout', field: 'checkoutId' });
  const name = deviceNameProblem(input.name);
  if (name === 'device_name_empty') return new CoreError('invalid_argument', 'Name: give the device a name, like Till 2.', { problem: name, field: 'name' });
  if (name === 'device_name_too_long') return new CoreError('invalid_argument', `Name: at most ${DEVICE_NAME_MAX} characters; shorten it.`, { problem: name, field: 'name' });
  return null;
}

function refuse(reason: PairingRefusal): CoreError {
  return new CoreError('pairing_refused', REFUSAL_TEXT[reason], { reason });
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** "1234 5678", "1234-5678" and "12345678" are the same code. */
export function normalizeCode(typed: string): string {
  return typed.replace(/[\s-]/g, '');
}

/** A code as the core makes them: 8 digits (what a person types is normalized first). */
const CODE = /^\d{8}$/;
/** Used, voided or expired offers a typed code is compared with, the newest. */
const PAST_OFFERS_TRIED = 5;
/**
 * How long the offers' shared salt is used for new codes before a new one is drawn: one brute
 * force of a journal's hashes reaches the codes of this long at most. Longer than a code's
 * life, so the live codes span two salts at most, and a typed code costs two hashes at most
 * (the used or expired ones kept to name the refusal add at most PAST_OFFERS_TRIED).
 */
export const SALT_ROTATION_MS = 60 * 60_000;

export class Devices {
  readonly #journal: JournalPort<object>;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #slowHash: SlowCodeHash;
  readonly #lock = new Mutex();
  #records = new Map<string, DeviceRecord>();
  #byCredential = new Map<string, string>();
  /** The offers the journal keeps (registry.ts): live, used, voided, or expired not long ago. */
  #offers: readonly PairingOfferRecord[] = [];
  readonly #wrongByAddress = new Map<string, number[]>();
  #wrongWhileLive = 0;
  readonly #online = new Map<string, number>();
  readonly #seenInMemory = new Map<string, number>();
  readonly #revokedListeners = new Set<(deviceId: string) => void>();
  #entrance: Entrance = { urls: [], fingerprint: null, storeCa: null };

  constructor(deps: { journal: JournalPort<object>; clock: Clock; log: Logger; slowHash?: SlowCodeHash }) {
    this.#journal = deps.journal;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#slowHash = deps.slowHash ?? scryptCode;
  }

  load(): void {
    this.#setRecords(this.#journal.projection<readonly DeviceRecord[]>(DEVICES_PROJECTION));
    this.#offers = this.#journal.projection<readonly PairingOfferRecord[]>(PAIRING_OFFERS_PROJECTION);
  }

  #setRecords(records: readonly DeviceRecord[]): void {
    this.#records = new Map(records.map((r) => [r.id, r]));
    this.#byCredential = new Map(records.filter((r) => r.revokedAt === null).map((r) => [r.credentialHash, r.id]));
  }

  async #write(type: string, data: Record<string, unknown>): Promise<void> {
    const { entries } = await this.#journal.append([{ type, data: data as Record<string, string | number | null> }]);
    let records: readonly DeviceRecord[] = [...this.#records.values()];
    for (const entry of entries) {
      records = foldDeviceEntry(records, entry);
      this.#offers = foldPairingOfferEntry(this.#offers, entry);
    }
    this.#setRecords(records);
  }

  setEntrance(entrance: Entrance): void {
    this.#entrance = { urls: [...entrance.urls], fingerprint: entrance.fingerprint, storeCa: entrance.storeCa === null ? null : { ...entrance.storeCa } };
  }

  get entrance(): Entrance {
    const { urls, fingerprint, storeCa } = this.#entrance;
    return { urls: [...urls], fingerprint, storeCa: storeCa === null ? null : { ...storeCa } };
  }

  /** A manager's one-time code for one device on one checkout: 8 digits, 10 minutes, once. */
  startPairing(by: Caller, input: { kind: DeviceKind; storeId: number; checkoutId: number; name: string }): Promise<PairingOffer & Entrance> {
    // The rules the Pair a till form checks first (electron/shared/form-rules.ts), kept here too.
    const problem = pairingProblem(input);
    if (problem !== null) return Promise.reject(problem);
    return this.#lock.run(async () => {
      this.#sweep();
      const { salt, saltSince } = this.#currentSalt();
      const key = saltKey(salt);
      const taken = new Set(this.#liveOffers().filter((o) => saltKey(o.codeHash) === key).map((o) => o.codeHash.hash));
      let code: string;
      let hash: string;
      do {
        code = String(randomInt(0, 100_000_000)).padStart(8, '0');
        hash = await this.#slowHash(code, salt, CODE_KEY_BYTES);
        // Under one salt two live codes alike would share a hash (1 in 10^8 per live code): draw again.
      } while (taken.has(hash));
      const offerId = randomUUID();
      const expiresAt = this.#clock.now() + PAIRING_CODE_TTL_MS;
      const name = input.name.trim();
      // The code itself is never written: its slow hash, who offered what, for which checkout, until when.
      await this.#write(DEVICE_PAIRING_OFFERED, {
        by: by.name,
        by_id: by.id,
        offer_id: offerId,
        kind: input.kind,
        store_id: input.storeId,
        checkout_id: input.checkoutId,
        name,
        expires_at: expiresAt,
        code_hash: { ...salt, hash },
        salt_since: saltSince,
      });
      this.#wrongWhileLive = 0;
      return { code, expiresAt, ...this.entrance };
    });
  }

  /**
   * A device enters a code. `from` (its network address) limits how fast one place may guess;
   * all wrong guesses together void every live code past WRONG_CODES_BEFORE_VOID.
   */
  pair(typed: string, from: string): Promise<{ credential: string; device: DeviceInfo }> {
    return this.#lock.run(async () => {
      const now = this.#clock.now();
      this.#sweep();
      const recent = (this.#wrongByAddress.get(from) ?? []).filter((t) => now - t < ADDRESS_WINDOW_MS);
      if (recent.length >= WRONG_CODES_PER_ADDRESS) throw refuse('too_many_attempts');
      const offer = await this.#offerOf(normalizeCode(typed));
      const problem: PairingRefusal | null = !offer
        ? 'wrong_code'
        : offer.state === 'used'
          ? 'used'
          : offer.state === 'voided'
            ? 'too_many_attempts'
            : offer.expiresAt <= now
              ? 'expired'
              : null;
      if (problem !== null || !offer) {
        if (problem === 'wrong_code') await this.#wrong(from, recent, now);
        this.#log.warn('pairing refused', { reason: problem, from });
        throw refuse(problem ?? 'wrong_code');
      }
      const credential = randomBytes(32).toString('base64url');
      const deviceId = randomUUID();
      // The pairing's entry is the code's use: once journaled, no core pairs it again.
      await this.#write(DEVICE_PAIRED, {
        by: offer.byName,
        by_id: offer.byId,
        offer_id: offer.offerId,
        device_id: deviceId,
        kind: offer.kind,
        name: offer.name,
        store_id: offer.storeId,
        checkout_id: offer.checkoutId,
        credential_sha256: sha256(credential),
        from,
      });
      this.#log.info('device paired', { device_id: deviceId, kind: offer.kind, store_id: offer.storeId, checkout_id: offer.checkoutId });
      return { credential, device: info(this.#records.get(deviceId) as DeviceRecord) };
    });
  }

  #liveOffers(): PairingOfferRecord[] {
    const now = this.#clock.now();
    return this.#offers.filter((o) => o.state === 'live' && o.expiresAt > now);
  }

  /**
   * The salt of the newest offer, while it is younger than SALT_ROTATION_MS; else a new random
   * one. It is read from the journal's offers, so a core that takes over goes on with it.
   */
  #currentSalt(): { salt: ReturnType<typeof newCodeSalt>; saltSince: number } {
    const now = this.#clock.now();
    const newest = this.#offers.at(-1);
    if (newest && newest.saltSince !== null && now - newest.saltSince < SALT_ROTATION_MS && newest.saltSince <= now) {
      const { n, r, p, salt } = newest.codeHash;
      return { salt: { alg: 'scrypt', n, r, p, salt }, saltSince: newest.saltSince };
    }
    return { salt: newCodeSalt(), saltSince: now };
  }

  /**
   * The journal's offer of that code, if any. The offers are grouped by salt: the typed code is
   * hashed once per salt and looked up among that salt's hashes. The live offers' salts are all
   * tried (an hour's codes share one; an offer journaled before salts were shared has its own,
   * and is tried alone until it expires, ten minutes at most), then the few newest salts of the
   * others (to say "used" or "expired" rather than "wrong"): a code costs a small bounded
   * number of scrypts, however many codes are live. The lookup compares scrypt outputs, not
   * codes: how long it takes tells nothing of a code without the hash it came from.
   */
  async #offerOf(code: string): Promise<PairingOfferRecord | undefined> {
    if (!CODE.test(code)) return undefined;
    const live = this.#liveOffers();
    const past = this.#offers.filter((o) => !live.includes(o));
    // Newest first within each salt, live before past: the first offer a hash names wins.
    const bySalt = new Map<string, Map<string, PairingOfferRecord>>();
    let pastSalts = 0;
    for (const [offer, isLive] of [...live.reverse().map((o) => [o, true] as const), ...past.reverse().map((o) => [o, false] as const)]) {
      const key = `${saltKey(offer.codeHash)}:${Buffer.from(offer.codeHash.hash, 'base64').length}`;
      let hashes = bySalt.get(key);
      if (hashes === undefined) {
        if (!isLive && pastSalts++ >= PAST_OFFERS_TRIED) continue;
        bySalt.set(key, (hashes = new Map()));
      }
      if (!hashes.has(offer.codeHash.hash)) hashes.set(offer.codeHash.hash, offer);
    }
    for (const hashes of bySalt.values()) {
      const first = hashes.values().next().value as PairingOfferRecord;
      const found = hashes.get(await this.#slowHash(code, first.codeHash, Buffer.from(first.codeHash.hash, 'base64').length));
      if (found) return found;
    }
    return undefined;
  }

  async #wrong(from: string, recent: number[], now: number): Promise<void> {
    this.#wrongByAddress.set(from, [...recent, now]);
    if (++this.#wrongWhileLive < WRONG_CODES_BEFORE_VOID) return;
    const live = this.#liveOffers().map((o) => o.offerId);
    if (live.length === 0) return;
    // Journaled, so the core that takes over does not give the guesser the codes back.
    const voided = { type: DEVICE_PAIRING_VOIDED, data: { offer_ids: live, wrong_codes: this.#wrongWhileLive } };
    try {
      await this.#write(voided.type, voided.data);
    } catch (err) {
      // Void here at least: a journal that refuses writes cannot pair a device either.
      this.#offers = foldPairingOfferEntry(this.#offers, { seq: 0, prev: '', hash: '', at: now, ...voided } as never);
      this.#log.error('could not journal that the live pairing codes are voided', { error: err });
    }
    this.#log.warn('too many wrong pairing codes: every live code is voided', { voided: live.length });
  }

  /** Forgets guesses outside the window (offers long past their time leave the journal's fold by themselves). */
  #sweep(): void {
    const now = this.#clock.now();
    for (const [from, times] of this.#wrongByAddress) if (times.every((t) => now - t >= ADDRESS_WINDOW_MS)) this.#wrongByAddress.delete(from);
  }

  /** The active device a credential belongs to, or null (unknown, or revoked). */
  authenticate(credential: string): DeviceInfo | null {
    if (!isDeviceCredential(credential)) return null;
    const id = this.#byCredential.get(sha256(credential));
    const record = id === undefined ? undefined : this.#records.get(id);
    return record && record.revokedAt === null ? info(record) : null;
  }

  /** Whether a connection's device is still paired (a revocation ends its calls at once). */
  active(deviceId: string): DeviceInfo | null {
    const record = this.#records.get(deviceId);
    return record && record.revokedAt === null ? info(record) : null;
  }

  revoke(by: Caller, deviceId: string): Promise<DeviceView> {
    return this.#lock.run(async () => {
      const record = this.#records.get(deviceId);
      if (!record) throw new CoreError('not_found', 'That device is not paired with this store.');
      if (record.revokedAt !== null) throw new CoreError('conflict', `${record.name} was already revoked.`, { reason: 'device_revoked' });
      await this.#write(DEVICE_REVOKED, { by: by.name, by_id: by.id, device_id: deviceId, name: record.name });
      this.#log.warn('device revoked', { device_id: deviceId });
      for (const listener of this.#revokedListeners) listener(deviceId);
      return this.#view(this.#records.get(deviceId) as DeviceRecord);
    });
  }

  onRevoked(listener: (deviceId: string) => void): () => void {
    this.#revokedListeners.add(listener);
    return () => this.#revokedListeners.delete(listener);
  }

  /** A device's connection opened; the returned function is called when it closes. */
  connected(deviceId: string): () => void {
    const now = this.#clock.now();
    this.#online.set(deviceId, (this.#online.get(deviceId) ?? 0) + 1);
    this.#seenInMemory.set(deviceId, now);
    const journaled = this.#records.get(deviceId)?.lastSeenAt ?? 0;
    if (now - journaled >= SEEN_EVERY_MS) {
      void this.#lock.run(() => this.#write(DEVICE_SEEN, { device_id: deviceId })).catch((err: unknown) => this.#log.warn('could not journal that a device was seen', { error: err }));
    }
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      const left = (this.#online.get(deviceId) ?? 1) - 1;
      if (left > 0) this.#online.set(deviceId, left);
      else this.#online.delete(deviceId);
      this.#seenInMemory.set(deviceId, this.#clock.now());
    };
  }

  /** Every device ever paired: active ones first, then by name. */
  list(): DeviceView[] {
    return [...this.#records.values()]
      .map((r) => this.#view(r))
      .sort((a, b) => Number(a.revokedAt !== null) - Number(b.revokedAt !== null) || a.name.localeCompare(b.name) || a.pairedAt - b.pairedAt);
  }

  /** The checkouts some active device is bound to. */
  checkouts(): Array<{ storeId: number; checkoutId: number }> {
    const keys = new Map<string, { storeId: number; checkoutId: number }>();
    for (const r of this.#records.values()) if (r.revokedAt === null) keys.set(`${r.storeId}/${r.checkoutId}`, { storeId: r.storeId, checkoutId: r.checkoutId });
    return [...keys.values()];
  }

  #view(r: DeviceRecord): DeviceView {
    const online = (this.#online.get(r.id) ?? 0) > 0 && r.revokedAt === null;
    const seen = Math.max(r.lastSeenAt ?? 0, this.#seenInMemory.get(r.id) ?? 0);
    return {
      ...info(r),
      pairedAt: r.pairedAt,
      pairedBy: r.pairedBy,
      lastSeenAt: online ? this.#clock.now() : seen === 0 ? null : seen,
      online,
      revokedAt: r.revokedAt,
      revokedBy: r.revokedBy,
    };
  }
}

function info(r: DeviceRecord): DeviceInfo {
  return { id: r.id, kind: r.kind, name: r.name, storeId: r.storeId, checkoutId: r.checkoutId };
}
