import type { MenuItemConstructorOptions } from 'electron';
import type { TextKey } from '../../src/lib/i18n.ts';
import type { AppMode } from './mode.ts';

/** A change of mode a manager may ask for from the menu, and how it is confirmed. */
export interface ModeSwitch {
  id: 'to-connect' | 'to-store';
  label: TextKey;
  detail: TextKey;
  /** What mode.json says after the restart: a till with no store yet asks for its address. */
  next: AppMode;
}

const TO_CONNECT: ModeSwitch = { id: 'to-connect', label: 'shell.toConnect', detail: 'shell.toConnectDetail', next: { mode: 'connect' } };
const TO_STORE: ModeSwitch = { id: 'to-store', label: 'shell.toStore', detail: 'shell.toStoreDetail', next: { mode: 'store' } };

/**
 * The store offers to become a till; a till offers to run the store, or to connect to another
 * store (a new address, a new certificate to compare).
 */
export function modeSwitches(running: 'store' | 'connect'): ModeSwitch[] {
  return running === 'store' ? [TO_CONNECT] : [TO_STORE, TO_CONNECT];
}

/** The app menu: Electron's usual menus, plus the mode switches under the store's own menu. */
export function appMenuTemplate(running: 'store' | 'connect', t: (key: TextKey) => string, onSwitch: (change: ModeSwitch) => void, platform: NodeJS.Platform): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  return [
    ...(mac ? [{ role: 'appMenu' } as const] : []),
    {
      label: t('shell.menu'),
      submenu: [
        ...modeSwitches(running).map((change) => ({ id: change.id, label: t(change.label), click: () => onSwitch(change) })),
        { type: 'separator' },
        mac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ];
}
