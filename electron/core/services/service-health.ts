import type { Clock } from '../../shared/clock.ts';
import type { ServiceClient } from '../api/client.ts';
import { ServiceError } from '../api/errors.ts';
import type { WireError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { ServiceEndpoint } from '../service-endpoint.ts';

export interface ServiceStatus {
  mode: 'sandbox' | 'remote';
  /** Where the service answers: the endpoint the core was given says. */
  baseUrl: string | null;
  /** null = not checked yet. */
  reachable: boolean | null;
  checkedAt: string | null;
  problem: WireError | null;
}

/**
 * Whether the payment service is there and takes our token, as the status bar shows it: from
 * the periodic check and from every call's answer. `onChange` hears each change.
 */
export class ServiceHealth {
  #status: ServiceStatus;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #onChange: () => void;

  constructor(endpoint: Pick<ServiceEndpoint, 'mode' | 'url'>, deps: { clock: Clock; log: Logger; onChange: () => void }) {
    this.#status = { mode: endpoint.mode, baseUrl: endpoint.url, reachable: null, checkedAt: null, problem: null };
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#onChange = deps.onChange;
  }

  get status(): ServiceStatus {
    return { ...this.#status };
  }

  /**
   * Is the service there and does it take our token? Any HTTP answer means reachable;
   * 401/403 means reachable but the token is refused, which a manager must fix.
   */
  async probe(client: ServiceClient | null): Promise<ServiceStatus> {
    if (!client || this.#status.baseUrl === null) return this.#status;
    let reachable = true;
    let problem: WireError | null = null;
    try {
      await client.listWallets({ deadlineMs: 5_000 });
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      reachable = err.httpStatus !== null;
      problem = err.toWire();
      this.#log.warn('service check failed', err.logFields());
    }
    const next: ServiceStatus = { ...this.#status, reachable, problem, checkedAt: this.#now() };
    const changed = next.reachable !== this.#status.reachable || next.problem?.code !== this.#status.problem?.code;
    this.#status = next;
    if (changed) this.#onChange();
    return next;
  }

  /**
   * Every call tells whether the service answered, not only the periodic check: the status
   * bar never shows the service reachable while its last calls failed, and shows it back as
   * soon as one succeeds.
   */
  answered(reached: boolean, error: ServiceError | null): void {
    // An HTTP refusal (a 4xx about one call) says the service is there; the check judges the token.
    if (reached && error !== null) return;
    const same = error === null ? this.#status.reachable === true && this.#status.problem === null : this.#status.reachable === false;
    if (same) return;
    this.#status = { ...this.#status, reachable: reached, problem: error ? error.toWire() : null, checkedAt: this.#now() };
    this.#onChange();
  }

  #now(): string {
    return new Date(this.#clock.now()).toISOString();
  }
}
