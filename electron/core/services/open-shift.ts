import type { ShiftView } from '../terminal/shift-report.ts';
import type { Shifts } from '../terminal/shifts.ts';
import type { CheckoutKey, Terminal } from '../terminal/terminal.ts';

export interface OpenShiftDeps {
  shifts: () => Shifts;
  /** The terminal once the core is ready (it throws before). */
  terminal: () => Terminal;
  /** The shift opened or closed: the status shows it. */
  onChange: () => void;
}

/** The till's open shift, if any: the status shows it and every charge is rung up in it. */
export class OpenShift {
  readonly #d: OpenShiftDeps;
  #view: ShiftView | null = null;

  constructor(deps: OpenShiftDeps) {
    this.#d = deps;
  }

  get view(): ShiftView | null {
    return this.#view;
  }

  async load(): Promise<void> {
    this.#view = await this.#d.shifts().current();
  }

  async open(by: string, note: string | undefined): Promise<ShiftView> {
    this.#view = await this.#d.shifts().open(by, note);
    this.#d.onChange();
    return this.#view;
  }

  /** `checkout`: the closing till's, whose pending sale the closer is warned of. */
  async close(by: string, note: string | undefined, confirmPending: boolean, checkout: CheckoutKey): Promise<ShiftView> {
    const view = await this.#d.terminal().checkoutView(checkout);
    const pending = view.recent.filter((s) => s.status === 'pending' || s.status === 'requested').length;
    const closed = await this.#d.shifts().close(by, note, pending, confirmPending);
    this.#view = null;
    this.#d.onChange();
    return closed;
  }

  /** Charges on `checkout`, in the open shift, in the name of the operator signed in. */
  charge(input: { amountCents: number; externalId?: string; by: string }, checkout: CheckoutKey) {
    return this.#d.terminal().charge({
      ...checkout,
      amountCents: input.amountCents,
      ...(input.externalId === undefined ? {} : { externalId: input.externalId }),
      by: input.by,
      ...(this.#view ? { shiftId: this.#view.shift_id } : {}),
    });
  }
}
