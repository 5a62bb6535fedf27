import { CoreError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { CoreState } from './status-board.ts';

/**
 * The core's life: stopped, starting, ready, stopping, stopped again; or failed at start.
 * `onChange` hears each state (the status bar shows it).
 */
export class Lifecycle {
  #state: CoreState = 'stopped';
  #startedAt: number | null = null;
  #starting: Promise<void> | null = null;
  readonly #onChange: () => void;

  constructor(onChange: () => void) {
    this.#onChange = onChange;
  }

  get state(): CoreState {
    return this.#state;
  }

  get startedAt(): number | null {
    return this.#startedAt;
  }

  get ready(): boolean {
    return this.#state === 'ready';
  }

  readyAt(now: number): void {
    this.#startedAt = now;
    this.#set('ready');
  }

  /** Starts with `open`; if it fails, `close` undoes what it opened and the core ends failed. */
  async start(open: () => Promise<void>, close: () => Promise<void>, log: Logger): Promise<void> {
    if (this.#state !== 'stopped') throw new CoreError('conflict', `The core cannot start while it is ${this.#state}.`);
    this.#starting = (async () => {
      this.#set('starting');
      try {
        await open();
      } catch (err) {
        log.error('core failed to start', { error: err });
        await close();
        this.#set('failed');
        throw err;
      }
    })();
    try {
      await this.#starting;
    } finally {
      this.#starting = null;
    }
  }

  /**
   * A stop asked for while starting (a quit during boot) waits for the start to settle, so no
   * resource is created after the stop closed them. False when there was nothing to stop.
   */
  async stop(close: () => Promise<void>): Promise<boolean> {
    await this.#starting?.catch(() => undefined);
    if (this.#state === 'stopped' || this.#state === 'stopping' || this.#state === 'failed') return false;
    this.#set('stopping');
    await close();
    this.#set('stopped');
    return true;
  }

  #set(state: CoreState): void {
    this.#state = state;
    this.#onChange();
  }
}
