/**
 * Where a sale's time goes (issue 28): the steps of a charge and of a payment, timed in the
 * core and the bridge when a bench switches the recorder on, and at the cost of one check of
 * a boolean per step when it is off (the app never switches it on). Measures only: nothing
 * decides anything on a figure.
 *
 * Steps are named spans, each a list of durations in ms. A span from one module to another
 * (the bridge's message to the charge it starts) goes through a mark: `mark` notes when, the
 * later `since` records the span. Marks assume one sale at a time, as the UI bench runs them;
 * under load they still give a duration per step, only not of one sale.
 */
export class StepRecorder {
  #now: (() => number) | null = null;
  readonly #samples = new Map<string, number[]>();
  readonly #marks = new Map<string, number>();

  /** Whether steps are being timed. */
  get on(): boolean {
    return this.#now !== null;
  }

  /** Starts timing with this clock (the bench's performance.now); forgets earlier samples. */
  start(now: () => number): void {
    this.#now = now;
    this.#samples.clear();
    this.#marks.clear();
  }

  /** Stops timing and hands over what was recorded, by step. */
  stop(): Record<string, number[]> {
    this.#now = null;
    this.#marks.clear();
    const out = Object.fromEntries(this.#samples);
    this.#samples.clear();
    return out;
  }

  /** The time to pass to `add` later; 0 when off (add then records nothing). */
  now(): number {
    return this.#now === null ? 0 : this.#now();
  }

  /** Records `step` as lasting from `from` (an earlier `now()`) until now. */
  add(step: string, from: number): void {
    if (this.#now === null) return;
    const ms = this.#now() - from;
    const list = this.#samples.get(step);
    if (list === undefined) this.#samples.set(step, [ms]);
    else list.push(ms);
  }

  /** Notes that `name` happened now (see `since`). */
  mark(name: string): void {
    if (this.#now !== null) this.#marks.set(name, this.#now());
  }

  /** Records `step` from the mark `name` until now, and forgets the mark; nothing (false) without one. */
  since(name: string, step: string): boolean {
    if (this.#now === null) return false;
    const at = this.#marks.get(name);
    if (at === undefined) return false;
    this.#marks.delete(name);
    this.add(step, at);
    return true;
  }
}

/** The process's recorder: the core and the bridge time into it, a bench switches it on. */
export const steps = new StepRecorder();

/** Step names: the bench prints them in this order, so they are named once, here. */
export const STEP = {
  bridgeIn: 'bridge in: message parsed',
  toCharge: 'bridge → charge: dispatch, role check, arguments',
  plan: 'charge: lock + planning reads',
  intent: 'charge: intent journaled (append, fsync, apply)',
  toCreate: 'charge: intent journaled → create sent (intent push started)',
  create: 'charge: create round trip (HTTP)',
  outcome: 'charge: outcome journaled (lock, reads, append, fsync, apply)',
  reply: 'charge: reply view + bridge out',
  outcomeToPush: 'charge: outcome journaled → QR push sent',
  chargeTotal: 'charge in the core: bridge in → QR push sent',
  payment: 'payment: webhook matched and journaled (append, fsync, apply)',
  paymentToPush: 'payment: journaled → push sent',
  view: 'view: checkout view built',
  push: 'bridge out: checkout.changed routed and sent',
} as const;
