import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isLang, type Lang } from '../shared/lang.ts';
import { writeFileAtomic } from './atomic-file.ts';
import type { CoreConfig } from './config.ts';
import type { CheckoutKey } from './terminal/terminal.ts';

/**
 * Settings a manager changes in the app (language, this terminal's checkout), kept in the
 * data dir across restarts (who is at the till is the signed-in operator, never a setting). A flag or environment variable given at
 * start wins over a saved setting; the file is written atomically and readable by this
 * user only. Secrets never go here.
 */
export interface Settings {
  lang?: Lang;
  storeId?: number;
  checkoutId?: number;
}

export const SETTINGS_FILE = 'settings.json';

function clean(value: unknown): Settings {
  if (typeof value !== 'object' || value === null) return {};
  const v = value as Record<string, unknown>;
  const out: Settings = {};
  if (isLang(v.lang)) out.lang = v.lang;
  for (const key of ['storeId', 'checkoutId'] as const) {
    const n = v[key];
    if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 1) out[key] = n;
  }
  return out;
}

/** The saved settings; a missing or unreadable file is no settings (the app still starts). */
export async function readSettings(dataDir: string): Promise<Settings> {
  try {
    return clean(JSON.parse(await readFile(join(dataDir, SETTINGS_FILE), 'utf8')));
  } catch {
    return {};
  }
}

export async function writeSettings(dataDir: string, settings: Settings): Promise<void> {
  await writeFileAtomic(join(dataDir, SETTINGS_FILE), JSON.stringify(clean(settings), null, 2) + '\n');
}

export interface SettingsView {
  lang: Lang;
  storeId: number;
  checkoutId: number;
}

/** The settings in force: the saved ones, where no flag or environment variable given at start says otherwise. */
export class TillSettings {
  #lang: Lang;
  #checkout: CheckoutKey;
  readonly #config: Pick<CoreConfig, 'dataDir' | 'explicit'>;

  constructor(config: Pick<CoreConfig, 'dataDir' | 'lang' | 'terminal' | 'explicit'>) {
    this.#config = config;
    this.#lang = config.lang;
    this.#checkout = { ...config.terminal };
  }

  get lang(): Lang {
    return this.#lang;
  }

  /** The checkout this terminal rings sales up on. */
  get checkout(): CheckoutKey {
    return { ...this.#checkout };
  }

  view(): SettingsView {
    return { lang: this.#lang, storeId: this.#checkout.storeId, checkoutId: this.#checkout.checkoutId };
  }

  async load(): Promise<void> {
    const saved = await readSettings(this.#config.dataDir);
    if (saved.lang !== undefined && !this.#config.explicit.lang) this.#lang = saved.lang;
    if (!this.#config.explicit.terminal) {
      this.#checkout = { storeId: saved.storeId ?? this.#checkout.storeId, checkoutId: saved.checkoutId ?? this.#checkout.checkoutId };
    }
  }

  /** Changes and saves settings; true when the checkout changed. */
  async update(patch: Settings): Promise<boolean> {
    const checkoutChanged =
      (patch.storeId !== undefined && patch.storeId !== this.#checkout.storeId) || (patch.checkoutId !== undefined && patch.checkoutId !== this.#checkout.checkoutId);
    this.#lang = patch.lang ?? this.#lang;
    this.#checkout = { storeId: patch.storeId ?? this.#checkout.storeId, checkoutId: patch.checkoutId ?? this.#checkout.checkoutId };
    await writeSettings(this.#config.dataDir, this.view());
    return checkoutChanged;
  }
}
