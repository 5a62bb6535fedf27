import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { SETUP_CHANNELS, type ProbeResult, type ReadProblem } from '../shared/setup-bridge.ts';
import { parseStoreAddress } from './mode.ts';
import type { Pin } from './pinning.ts';

/**
 * window.posSetup's handlers: the setup page of a till that has no store yet. `probe` reads
 * the certificate at the typed address; `confirm` pins exactly what main read last, so the
 * page can never pin a fingerprint main did not see. Only the app's own page may call them.
 */
export function registerSetupBridge(
  ipcMain: IpcMain,
  deps: {
    isAllowed: (event: IpcMainInvokeEvent) => boolean;
    readFingerprint: (origin: string) => Promise<{ ok: true; fingerprint: string } | { ok: false; problem: ReadProblem }>;
    connect: (pin: Pin) => Promise<void>;
  },
): () => void {
  let probed: Pin | null = null;
  const guard = (event: IpcMainInvokeEvent) => {
    if (!deps.isAllowed(event)) throw new Error('Only the app’s setup page may choose the store.');
  };
  ipcMain.handle(SETUP_CHANNELS.probe, async (event, address: unknown): Promise<ProbeResult> => {
    guard(event);
    probed = null;
    const parsed = parseStoreAddress(address);
    if (!parsed.ok) return parsed;
    const read = await deps.readFingerprint(parsed.origin);
    if (!read.ok) return read;
    probed = { origin: parsed.origin, fingerprint: read.fingerprint };
    return { ok: true, ...probed };
  });
  ipcMain.handle(SETUP_CHANNELS.confirm, async (event, args: unknown): Promise<boolean> => {
    guard(event);
    const given = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
    if (probed === null || given.origin !== probed.origin || given.fingerprint !== probed.fingerprint) return false;
    const pin = probed;
    probed = null;
    await deps.connect(pin);
    return true;
  });
  return () => {
    for (const channel of Object.values(SETUP_CHANNELS)) ipcMain.removeHandler(channel);
  };
}
