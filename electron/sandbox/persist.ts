/**
 * Persistence to one JSON file when the `persistFile` option is given, so a restarted app
 * finds its sales (issue point 8). Writes are atomic: a temp file in the same directory,
 * fsync, rename over the target, fsync of the directory; a crash leaves either the old or
 * the new file, never half of one. Writes are debounced and serialised, and `close()`
 * flushes whatever is still dirty.
 */
import { readFile, rename } from 'node:fs/promises';
import { writeFileAtomic } from '../core/atomic-file.ts';
import type { SandboxState } from './state.ts';

export const DEFAULT_DEBOUNCE_MS = 150;

export type LoadResult = { kind: 'missing' } | { kind: 'loaded'; state: SandboxState } | { kind: 'corrupt'; error: string; movedTo: string | null };

/**
 * Reads a saved state. A file that is not a saved state is moved aside (never overwritten
 * silently) and reported as corrupt. Fields a newer sandbox added are filled from `defaults`.
 */
export async function loadState(file: string, defaults: SandboxState): Promise<LoadResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || (parsed as { version?: unknown }).version !== 1) {
      throw new Error('not a sandbox state (version 1)');
    }
    return { kind: 'loaded', state: { ...defaults, ...(parsed as Partial<SandboxState>) } as SandboxState };
  } catch (error) {
    const movedTo = `${file}.corrupt-${Date.now()}`;
    try {
      await rename(file, movedTo);
      return { kind: 'corrupt', error: (error as Error).message, movedTo };
    } catch {
      return { kind: 'corrupt', error: (error as Error).message, movedTo: null };
    }
  }
}

export class StatePersister {
  readonly #file: string;
  readonly #snapshot: () => string;
  readonly #log: (line: string) => void;
  readonly #debounceMs: number;
  #dirty = false;
  /** How long the last snapshot + write took: a big state is written less often. */
  #lastCostMs = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #writing: Promise<void> = Promise.resolve();

  constructor(file: string, snapshot: () => string, log: (line: string) => void, debounceMs = DEFAULT_DEBOUNCE_MS) {
    this.#file = file;
    this.#snapshot = snapshot;
    this.#log = log;
    this.#debounceMs = debounceMs;
  }

  markDirty(): void {
    this.#dirty = true;
    if (this.#timer !== null) return;
    // Writing never takes more than about a fifth of the time, however large the state grows.
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush();
    }, Math.max(this.#debounceMs, this.#lastCostMs * 4));
  }

  /** Writes now if anything changed; resolves when that write (and any before it) is done. */
  flush(): Promise<void> {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#writing = this.#writing.then(async () => {
      if (!this.#dirty) return;
      this.#dirty = false;
      const started = performance.now();
      try {
        await writeFileAtomic(this.#file, this.#snapshot());
        this.#lastCostMs = performance.now() - started;
      } catch (error) {
        // Keep it dirty so the next flush tries again; a failing disk must not stop the sandbox.
        this.#dirty = true;
        this.#log(`could not save the sandbox state to ${this.#file}: ${(error as Error).message}`);
      }
    });
    return this.#writing;
  }

  close(): Promise<void> {
    return this.flush();
  }
}
