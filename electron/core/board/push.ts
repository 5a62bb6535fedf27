import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../log.ts';
import type { Session } from '../operators/operators.ts';
import type { CheckoutKey } from '../terminal/terminal.ts';
import { boardCheckout, boardDay, sortCheckouts, type BoardCheckout, type BoardReads, type FloorBoard, type KnownCheckout } from './board.ts';

/**
 * How often at most an open board is rebuilt and pushed: the changes of 64 tills at 500
 * sales/s come together into one push, and only the checkouts that changed are read again.
 */
export const BOARD_COALESCE_MS = 400;

export interface BoardPushDeps {
  clock: Clock;
  log: Logger;
  /** The reads a board is built from, once the core is ready (it throws before). */
  reads: () => BoardReads;
  /** Every checkout the core knows with its names (the service's stores and checkouts, the paired tills). */
  listCheckouts: () => Promise<KnownCheckout[]>;
  /** Whether the session may still see the board (a supervisor or a manager signed in on a till). */
  mayWatch: (session: Session) => boolean;
  emit: (board: FloorBoard) => void;
}

interface ZoneBoard {
  day: string;
  rows: Map<string, BoardCheckout>;
}

const keyOf = (c: CheckoutKey) => `${c.storeId}/${c.checkoutId}`;

/**
 * The open boards. A board is built only for the sessions that asked for it (board.view);
 * while none did, a sale's change costs nothing here. While one is open, changed checkouts
 * are gathered and their rows rebuilt at most every BOARD_COALESCE_MS, one push per time zone.
 */
export class BoardPush {
  readonly #d: BoardPushDeps;
  /** Sessions with the board open, and the time zone their day is counted in. */
  readonly #watchers = new Map<Session, string>();
  readonly #known = new Map<string, KnownCheckout>();
  readonly #boards = new Map<string, ZoneBoard>();
  readonly #dirty = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;

  constructor(deps: BoardPushDeps) {
    this.#d = deps;
  }

  /** The whole board for a session, which from now on hears its changes (until leave). */
  async open(session: Session, timeZone: string): Promise<FloorBoard> {
    try {
      for (const c of await this.#d.listCheckouts()) this.#known.set(keyOf(c), c);
    } catch (err) {
      // The service's listing is for names and idle checkouts: the journal's still make a board.
      this.#d.log.warn('could not list the checkouts for the floor board', { error: err });
    }
    // Watching first: a sale that changes while the board is read is pushed after it.
    const before = this.#watchers.get(session);
    this.#watchers.set(session, timeZone);
    try {
      return await this.#build(timeZone, null);
    } catch (err) {
      if (before === undefined) this.#watchers.delete(session);
      else this.#watchers.set(session, before);
      throw err;
    }
  }

  leave(session: Session): void {
    this.#watchers.delete(session);
  }

  /** Whether a board of that zone goes to the session (routing.ts). */
  watching(session: Session, timeZone: string): boolean {
    return this.#watchers.get(session) === timeZone && this.#d.mayWatch(session);
  }

  watchers(): number {
    return this.#watchers.size;
  }

  /** Sales changed on these checkouts: their rows are rebuilt with the next push, if a board is open. */
  checkoutsChanged(checkouts: readonly CheckoutKey[]): void {
    if (this.#watchers.size === 0) return;
    for (const c of checkouts) {
      const key = keyOf(c);
      this.#dirty.add(key);
      if (!this.#known.has(key)) this.#known.set(key, { ...c, storeName: null, checkoutDesc: null, tills: [], storeComputer: false });
    }
    this.#schedule();
  }

  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#watchers.clear();
  }

  #schedule(): void {
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#flushing !== null) {
        // One rebuild at a time: what changed meanwhile waits for the next.
        void this.#flushing.then(() => this.#schedule());
        return;
      }
      this.#flushing = this.#flush().finally(() => (this.#flushing = null));
    }, BOARD_COALESCE_MS);
    this.#timer.unref();
  }

  async #flush(): Promise<void> {
    for (const session of [...this.#watchers.keys()]) if (!this.#d.mayWatch(session)) this.#watchers.delete(session);
    const dirty = new Set(this.#dirty);
    this.#dirty.clear();
    for (const zone of new Set(this.#watchers.values())) {
      try {
        this.#d.emit(await this.#build(zone, dirty));
      } catch (err) {
        this.#d.log.warn('could not build the floor board', { error: err });
      }
    }
    for (const zone of [...this.#boards.keys()]) if (![...this.#watchers.values()].includes(zone)) this.#boards.delete(zone);
  }

  /** `dirty`: the checkouts to read again (null: all); a new day reads every one again. */
  async #build(timeZone: string, dirty: ReadonlySet<string> | null): Promise<FloorBoard> {
    const now = this.#d.clock.now();
    const { day, from, to } = boardDay(now, timeZone);
    let kept = this.#boards.get(timeZone);
    if (kept === undefined || kept.day !== day || dirty === null) {
      kept = { day, rows: new Map() };
      this.#boards.set(timeZone, kept);
    }
    const rows = kept.rows;
    const reads = this.#d.reads();
    const checkouts = sortCheckouts([...this.#known.values()]);
    await Promise.all(
      checkouts.map(async (c) => {
        const key = keyOf(c);
        if (rows.has(key) && !(dirty?.has(key) ?? true)) return;
        rows.set(key, await boardCheckout(reads, c, { from, to }));
      }),
    );
    return { now, time_zone: timeZone, day, checkouts: checkouts.map((c) => rows.get(keyOf(c))).filter((r): r is BoardCheckout => r !== undefined) };
  }
}
