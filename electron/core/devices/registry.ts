import type { JournalEntry, Projection } from '../journal/port.ts';
import { isPinHash, type PinHash } from '../operators/pin.ts';

/**
 * The store's paired devices as the journal keeps them: every pairing offered, every device
 * paired and revoked is an entry with who did it; the register is their fold, kept in the
 * checkpoint (a start reads no history for it).
 */
export const DEVICE_PAIRING_OFFERED = 'device.pairing_offered';
export const DEVICE_PAIRED = 'device.paired';
export const DEVICE_REVOKED = 'device.revoked';
/** A device connected (written at most every SEEN_EVERY_MS per device): its "last seen" survives a restart. */
export const DEVICE_SEEN = 'device.seen';

export const DEVICE_ENTRY_TYPES = [DEVICE_PAIRING_OFFERED, DEVICE_PAIRED, DEVICE_REVOKED, DEVICE_SEEN] as const;
/** Entries a person does, which must say who (`data.by`). */
export const DEVICE_PERSON_ACTIONS = [DEVICE_PAIRING_OFFERED, DEVICE_PAIRED, DEVICE_REVOKED] as const;

export const DEVICE_KINDS = ['till', 'display'] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];

/** What a connection knows of the device it comes from. */
export interface DeviceInfo {
  id: string;
  kind: DeviceKind;
  name: string;
  storeId: number;
  checkoutId: number;
}

export interface DeviceRecord extends DeviceInfo {
  /** SHA-256 (hex) of the device's credential: the credential itself is never kept. */
  credentialHash: string;
  pairedAt: number;
  /** The manager who made the pairing code the device used. */
  pairedBy: string;
  lastSeenAt: number | null;
  revokedAt: number | null;
  revokedBy: string | null;
}

export function foldDeviceEntry(records: readonly DeviceRecord[], entry: JournalEntry): readonly DeviceRecord[] {
  const d = entry.data as Record<string, unknown>;
  if (entry.type === DEVICE_PAIRED) {
    const record: DeviceRecord = {
      id: String(d.device_id),
      kind: d.kind === 'display' ? 'display' : 'till',
      name: String(d.name),
      storeId: Number(d.store_id),
      checkoutId: Number(d.checkout_id),
      credentialHash: String(d.credential_sha256),
      pairedAt: entry.at,
      pairedBy: String(d.by),
      lastSeenAt: entry.at,
      revokedAt: null,
      revokedBy: null,
    };
    return [...records.filter((r) => r.id !== record.id), record];
  }
  if (entry.type === DEVICE_REVOKED) {
    return records.map((r) => (r.id === d.device_id && r.revokedAt === null ? { ...r, revokedAt: entry.at, revokedBy: String(d.by) } : r));
  }
  if (entry.type === DEVICE_SEEN) {
    return records.map((r) => (r.id === d.device_id ? { ...r, lastSeenAt: Math.max(r.lastSeenAt ?? 0, entry.at) } : r));
  }
  return records;
}

/**
 * Issue 23: the pairing codes offered and not yet long past, as the journal keeps them, so a
 * code made at one core pairs at another after a takeover, once. Each offer's entry carries
 * the code's slow salted hash (an 8-digit code under SHA-256 would be read back from the
 * journal in a second), its expiry and who made it; a pairing marks it used, too many wrong
 * codes void the live ones.
 */
export const DEVICE_PAIRING_VOIDED = 'device.pairing_voided';

export interface PairingOfferRecord {
  offerId: string;
  /**
   * The code as a PIN rests (operators/pin.ts): scrypt, under the salt the store's offers
   * share while it is fresh (devices.ts), or, for offers journaled before that, its own.
   */
  codeHash: PinHash;
  /** When the salt of `codeHash` was drawn (core clock, epoch ms); null for an offer with its own salt. */
  saltSince: number | null;
  kind: DeviceKind;
  storeId: number;
  checkoutId: number;
  name: string;
  byName: string;
  byId: string;
  /** Core clock, epoch ms. */
  expiresAt: number;
  state: 'live' | 'used' | 'voided';
}

/** Offers past their time are kept this long, to say "expired" or "used" rather than "wrong", then forgotten. */
export const OFFER_KEPT_AFTER_EXPIRY_MS = 60 * 60_000;

export function foldPairingOfferEntry(offers: readonly PairingOfferRecord[], entry: JournalEntry): readonly PairingOfferRecord[] {
  const d = entry.data as Record<string, unknown>;
  const kept = offers.filter((o) => o.expiresAt + OFFER_KEPT_AFTER_EXPIRY_MS > entry.at);
  if (entry.type === DEVICE_PAIRING_OFFERED) {
    // Offers journaled before issue 23 carry no code: they were void at the next start anyway.
    if (!isPinHash(d.code_hash) || typeof d.offer_id !== 'string' || typeof d.expires_at !== 'number') return kept;
    return [
      ...kept,
      {
        offerId: d.offer_id,
        codeHash: d.code_hash,
        kind: d.kind === 'display' ? 'display' : 'till',
        storeId: Number(d.store_id),
        checkoutId: Number(d.checkout_id),
        name: String(d.name),
        byName: String(d.by),
        byId: String(d.by_id),
        expiresAt: d.expires_at,
        saltSince: typeof d.salt_since === 'number' ? d.salt_since : null,
        state: 'live',
      },
    ];
  }
  if (entry.type === DEVICE_PAIRED) return kept.map((o) => (o.offerId === d.offer_id ? { ...o, state: 'used' } : o));
  if (entry.type === DEVICE_PAIRING_VOIDED) {
    const voided = Array.isArray(d.offer_ids) ? d.offer_ids : [];
    return kept.map((o) => (o.state === 'live' && voided.includes(o.offerId) ? { ...o, state: 'voided' } : o));
  }
  return offers;
}

export const PAIRING_OFFERS_PROJECTION = 'pairing_offers';
export const pairingOffersProjection: Projection<readonly PairingOfferRecord[]> = {
  initial: [],
  reduce: (offers, entry) => foldPairingOfferEntry(offers, entry),
};

export const DEVICES_PROJECTION = 'devices';
export const devicesProjection: Projection<readonly DeviceRecord[]> = {
  initial: [],
  reduce: (records, entry) => ((DEVICE_ENTRY_TYPES as readonly string[]).includes(entry.type) ? foldDeviceEntry(records, entry) : records),
};
