/**
 * Timers on SANDBOX time. A task is due when the sandbox clock reaches its time, so moving
 * the clock forward (`POST /_sandbox/clock/advance`) runs what became due at once: webhook
 * retries (contract 4) and S2's settlement windows follow the sandbox clock, not the wall.
 *
 * A real timer re-checks at most every second, so a test that moves the OffsetClock directly
 * (without the control API) is also served, just up to a second later.
 */
import type { Clock } from '../shared/clock.ts';

interface Task {
  due: number;
  run: () => void;
  seq: number;
}

const MAX_REAL_WAIT_MS = 1_000;

export class SandboxTimers {
  readonly #clock: Clock;
  readonly #onError: (error: unknown) => void;
  #tasks: Task[] = [];
  #seq = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;

  constructor(clock: Clock, onError: (error: unknown) => void = () => undefined) {
    this.#clock = clock;
    this.#onError = onError;
  }

  /** Runs `run` once the sandbox clock reaches `dueMs`. Returns a cancel function. */
  at(dueMs: number, run: () => void): () => void {
    if (this.#stopped) return () => undefined;
    const task: Task = { due: dueMs, run, seq: ++this.#seq };
    this.#tasks.push(task);
    this.#arm();
    return () => {
      this.#tasks = this.#tasks.filter((t) => t !== task);
    };
  }

  /** Runs `run` after `ms` of sandbox time. */
  after(ms: number, run: () => void): () => void {
    return this.at(this.#clock.now() + ms, run);
  }

  /** Runs every task now due, oldest due first; call after moving the clock. */
  poke(): void {
    if (this.#stopped) return;
    const now = this.#clock.now();
    const due = this.#tasks.filter((t) => t.due <= now).sort((a, b) => a.due - b.due || a.seq - b.seq);
    if (due.length > 0) {
      this.#tasks = this.#tasks.filter((t) => t.due > now);
      for (const task of due) {
        try {
          task.run();
        } catch (error) {
          this.#onError(error);
        }
      }
    }
    this.#arm();
  }

  get pending(): number {
    return this.#tasks.length;
  }

  stop(): void {
    this.#stopped = true;
    this.#tasks = [];
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #arm(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#stopped || this.#tasks.length === 0) return;
    const earliest = Math.min(...this.#tasks.map((t) => t.due));
    const wait = Math.max(0, Math.min(MAX_REAL_WAIT_MS, earliest - this.#clock.now()));
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.poke();
    }, wait);
    // A pending retry must not keep a CLI or test process alive on its own.
    this.#timer.unref();
  }
}
