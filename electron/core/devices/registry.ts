import type { JournalEntry, Projection } from '../journal/port.ts';

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

export const DEVICES_PROJECTION = 'devices';
export const devicesProjection: Projection<readonly DeviceRecord[]> = {
  initial: [],
  reduce: (records, entry) => ((DEVICE_ENTRY_TYPES as readonly string[]).includes(entry.type) ? foldDeviceEntry(records, entry) : records),
};
