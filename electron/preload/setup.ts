import { contextBridge, ipcRenderer } from 'electron';
import { SETUP_CHANNELS, type PosSetup, type ProbeResult } from '../shared/setup-bridge.ts';

/**
 * The setup page's preload (connect mode before a store is pinned): window.posSetup reads a
 * store's certificate fingerprint and, once the person confirms it, pins it. Main accepts
 * these calls from the app's own setup page only.
 */
const api = {
  probe: (address: string) => ipcRenderer.invoke(SETUP_CHANNELS.probe, address) as Promise<ProbeResult>,
  confirm: (origin: string, fingerprint: string) => ipcRenderer.invoke(SETUP_CHANNELS.confirm, { origin, fingerprint }) as Promise<boolean>,
} satisfies PosSetup;

contextBridge.exposeInMainWorld('posSetup', api);
