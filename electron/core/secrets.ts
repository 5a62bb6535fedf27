import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from './atomic-file.ts';

/**
 * Secrets at rest (the service token, the webhook signing secret): never in settings, never
 * logged. The Electron shell encrypts them with the OS keychain (safeStorage); the browser
 * shell keeps them in a file only this user can read. Both are this one store with a
 * different codec.
 */
export interface SecretCodec {
  /** 'safeStorage' (encrypted by the OS) or 'plain-file' (protected by file permissions). */
  readonly kind: string;
  encode(value: string): string;
  decode(stored: string): string;
}

export interface SecretStore {
  readonly kind: string;
  get(name: string): Promise<string | null>;
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
}

export const plainCodec: SecretCodec = { kind: 'plain-file', encode: (v) => v, decode: (v) => v };

export class SecretFileError extends Error {
  override name = 'SecretFileError';
}

export class FileSecretStore implements SecretStore {
  readonly #path: string;
  readonly #codec: SecretCodec;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(path: string, codec: SecretCodec = plainCodec) {
    this.#path = path;
    this.#codec = codec;
  }

  get kind(): string {
    return this.#codec.kind;
  }

  async get(name: string): Promise<string | null> {
    const stored = (await this.#read())[name];
    return stored === undefined ? null : this.#codec.decode(stored);
  }

  set(name: string, value: string): Promise<void> {
    return this.#update((all) => ({ ...all, [name]: this.#codec.encode(value) }));
  }

  delete(name: string): Promise<void> {
    return this.#update((all) => Object.fromEntries(Object.entries(all).filter(([k]) => k !== name)));
  }

  async #read(): Promise<Record<string, string>> {
    let text: string;
    try {
      const info = await stat(this.#path);
      // A secrets file others can read has leaked already: refuse it rather than use it.
      if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
        throw new SecretFileError(`${this.#path} can be read by other users: delete it and save the secrets again.`);
      }
      text = await readFile(this.#path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw err;
    }
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SecretFileError(`${this.#path} is not a secrets file.`);
    return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
  }

  #update(change: (all: Record<string, string>) => Record<string, string>): Promise<void> {
    const run = this.#queue.then(async () => {
      const next = change(await this.#read());
      await mkdir(dirname(this.#path), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.#path, JSON.stringify(next), 0o600);
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
