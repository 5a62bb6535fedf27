/**
 * The Electron till's device credential, kept by main with safeStorage and reachable only from
 * the pinned store origin's page (connect mode). The renderer uses window.posDevice when it is
 * there, else its own storage. Shared by electron/main, electron/preload/device.ts and src/.
 */
export const DEVICE_CHANNELS = { load: 'posDevice:load', save: 'posDevice:save', forget: 'posDevice:forget' } as const;

/** window.posDevice, exposed to the page of the pinned store origin only. */
export interface PosDevice {
  load(): Promise<string | null>;
  save(credential: string): Promise<void>;
  forget(): Promise<void>;
}

/** A device credential: 32 random bytes as base64url without padding (43 characters). */
export function isDeviceCredential(raw: unknown): raw is string {
  return typeof raw === 'string' && /^[A-Za-z0-9_-]{43}$/.test(raw);
}
