/**
 * The merchant's write lease (migrations/0002_core_lease.sql): of the cores that share a
 * database, the one holding the lease writes; the others stand by and take it when it runs
 * out. Each takeover raises the term; every append checks its term inside its own statement
 * (pos_fence), so a core that lost the lease while paused or cut off can never write again.
 *
 * The database's clock decides when a lease runs out, so cores on machines whose clocks
 * disagree still agree on it. The holder renews it every third of its length. Running out
 * only lets a standby take it: until one does, the lease is still its holder's (a database
 * restart longer than a lease does not stop a lone core). A holder whose renewal finds
 * another term has lost it, and is told so once.
 *
 * The holder also publishes where it serves its tills (migrations/0005_core_address.sql),
 * written with every take and renewal; a standby reads it as it waits, to relay the tills
 * that reach it there (web/relay.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../core/log.ts';
import { isConnectionLoss, type Sql } from './connect.ts';

/** What pos_fence raises when the appending core no longer holds the lease under its term. */
export const FENCED_CODE = 'PF001';
export const DEFAULT_LEASE_MS = 6_000;

export interface LeaseOptions {
  sql: Sql;
  log?: Logger;
  /** How long a lease lasts unless renewed; a standby takes over at most this long after the holder dies. */
  leaseMs?: number;
  /** Names this core in the lease row (a random id by default). */
  holder?: string;
  /** Where this core serves its tills (host:port the other cores reach), published while it holds the lease; null: nowhere they can reach. */
  address?: string | null;
}

/** The core that holds the lease as a standby sees it: its name and where it serves its tills (null: it publishes no address). */
export interface ActiveCore {
  holder: string;
  address: string | null;
}

export type LeaseAnswer = { held: true; term: number } | ({ held: false; runsOutInMs: number } & ActiveCore);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class CoreLease {
  readonly holder: string;
  readonly address: string | null;
  readonly leaseMs: number;
  readonly #sql: Sql;
  readonly #log: Logger | undefined;
  #term: number | null = null;
  #previous: string | null = null;
  #renewing: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;

  constructor(options: LeaseOptions) {
    this.#sql = options.sql;
    this.#log = options.log;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.holder = options.holder ?? `core-${randomUUID()}`;
    this.address = options.address ?? null;
  }

  /** The term this core holds, or null. */
  get term(): number | null {
    return this.#term;
  }

  /** Who held the lease before this core took it (null when no core had): its holder's name. */
  get previousHolder(): string | null {
    return this.#previous;
  }

  /**
   * Takes the lease if no one holds it, its holder let it run out, or its holder is this core
   * by name (restarted: whatever its earlier process still does is fenced by the new term).
   * The new term; else who holds it and for how long.
   */
  async tryAcquire(): Promise<LeaseAnswer> {
    // `before` is the row as it was: whom this core takes the lease from (the takeover entry names it).
    const [taken] = await this.#sql<{ term: string; previous: string }[]>`
      update core_lease as l set holder = ${this.holder}, term = l.term + 1, expires_at = clock_timestamp() + ${this.leaseMs} * interval '1 millisecond', address = ${this.address}
      from core_lease as before
      where l.id = 1 and before.id = 1 and (l.expires_at <= clock_timestamp() or l.holder = ${this.holder})
      returning l.term::text, before.holder as previous`;
    if (taken) {
      this.#term = Number(taken.term);
      this.#previous = taken.previous === '' ? null : taken.previous;
      return { held: true, term: this.#term };
    }
    const [row] = await this.#sql<{ holder: string; address: string | null; ms: number }[]>`select holder, address, greatest(0, ceil(extract(epoch from expires_at - clock_timestamp()) * 1000))::int as ms from core_lease where id = 1`;
    return { held: false, holder: row?.holder ?? '', address: row?.address ?? null, runsOutInMs: row?.ms ?? 0 };
  }

  /**
   * Stands by until the lease is this core's: its term. Says once that it waits, and for whom;
   * tells `standingBy` which core is active, and again each time that core or its address changes.
   */
  async acquire(standingBy?: (active: ActiveCore) => void): Promise<number> {
    let said = false;
    let told: ActiveCore | null = null;
    let unreachable = false;
    for (;;) {
      if (this.#stopped) throw new Error('the lease was given up while waiting for it');
      let answer: LeaseAnswer;
      try {
        answer = await this.tryAcquire();
      } catch (err) {
        // A standby outlives a database that stops answering for a while: it asks again.
        if (!isConnectionLoss(err)) throw err;
        if (!unreachable) this.#log?.warn('the database does not answer; still waiting for the lease', { error: err instanceof Error ? err.message : String(err) });
        unreachable = true;
        await sleep(this.leaseMs / 3);
        continue;
      }
      unreachable = false;
      if (answer.held) {
        if (said) this.#log?.info('took over as the merchant’s active core', { term: answer.term });
        return answer.term;
      }
      if (!said) {
        this.#log?.info('standing by: another core is active', { holder: answer.holder, address: answer.address, runs_out_in_ms: answer.runsOutInMs });
        said = true;
      }
      if (told === null || told.holder !== answer.holder || told.address !== answer.address) {
        told = { holder: answer.holder, address: answer.address };
        standingBy?.(told);
      }
      // Asked again a little after it would run out, and at least every third of a lease.
      await sleep(Math.min(this.leaseMs / 3, answer.runsOutInMs + 50));
    }
  }

  /**
   * Extends the lease if this core still holds it under its term; false once it does not.
   * One that ran out while no core took it (the database was away) is still this core's.
   */
  async renew(): Promise<boolean> {
    if (this.#term === null) return false;
    const rows = await this.#sql`
      update core_lease set expires_at = clock_timestamp() + ${this.leaseMs} * interval '1 millisecond', address = ${this.address}
      where id = 1 and holder = ${this.holder} and term = ${this.#term}
      returning 1`;
    return rows.length === 1;
  }

  /**
   * Renews every third of a lease until stopped; `lost` is called once when a renewal finds
   * the lease gone, `renewed` after every attempt with whether the database answered.
   */
  keep(lost: (why: string) => void, renewed?: (reachable: boolean) => void): void {
    const tick = async () => {
      this.#renewing = null;
      if (this.#stopped) return;
      let held: boolean;
      try {
        held = await this.renew();
      } catch (err) {
        // Not reached this time: the lease still runs until it runs out; try again sooner.
        renewed?.(false);
        this.#log?.warn('the lease could not be renewed this time', { error: err instanceof Error ? err.message : String(err) });
        if (!this.#stopped) this.#renewing = setTimeout(() => void tick(), this.leaseMs / 6).unref();
        return;
      }
      renewed?.(true);
      if (!held) {
        const term = this.#term;
        this.#term = null;
        this.#log?.error('this core lost the merchant’s lease: another core took over or it ran out', { term });
        lost(`This core no longer holds the merchant's lease (term ${term}): another core is active now.`);
        return;
      }
      if (!this.#stopped) this.#renewing = setTimeout(() => void tick(), this.leaseMs / 3).unref();
    };
    this.#renewing = setTimeout(() => void tick(), this.leaseMs / 3).unref();
  }

  /** Stops renewing and lets the lease run out at once, so a standby takes over without waiting; it no longer serves, so it publishes no address. */
  async release(): Promise<void> {
    this.#stopped = true;
    if (this.#renewing) clearTimeout(this.#renewing);
    this.#renewing = null;
    const term = this.#term;
    this.#term = null;
    if (term === null) return;
    await this.#sql`update core_lease set expires_at = '-infinity', address = null where id = 1 and holder = ${this.holder} and term = ${term}`;
  }
}
