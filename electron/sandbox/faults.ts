/**
 * Fault injection (issue point 7), armed through `POST /_sandbox/faults`. Faults live in
 * memory only (never persisted) and `POST /_sandbox/reset` or `DELETE /_sandbox/faults`
 * clears them. Three targets:
 *
 * - route: the next `count` requests of one route (method + pattern such as
 *   '/v2/tx_status/:pix_id', or a concrete path) answer without being processed:
 *   `http_502` {"detail":"Bad Gateway"}, `http_503` {"detail":"Service Unavailable"},
 *   `http_500` plain-text `Internal Server Error`, `timeout` (no answer at all; the
 *   connection is held open until the client gives up or the sandbox closes), or
 *   `lost_response` (processed normally, then the connection is cut before any answer:
 *   the case where a client cannot know whether its create went through).
 * - gateway: the next `count` printed QR creations that reach the payment gateway fail
 *   after the checkout was created (reference 4.4 rule 5): `printed_qr_error` answers 502
 *   `Gateway error during printed dynamic QR creation`, `printed_qr_bad_fields` answers 502
 *   `Gateway did not return expected fields for printed dynamic QR creation`.
 * - idempotency: the next `count` requests of one route (method + pattern) are processed as
 *   if they carried no `Idempotency-Key` (contract 2: "a client must stay correct when the
 *   service ignores the header"; contract 5 does not promise a refund honours it at all).
 *   Checked apart from route faults, so a lost answer and an ignored key can meet.
 * - webhooks: the next `count` events (optionally only those named `event`) are
 *   `duplicate`d (a second, identical delivery with the same webhook-id after the first),
 *   `delay`ed (first attempt `delay_seconds` of sandbox time late), `drop`ped (never sent),
 *   or `reorder`ed (held until `count` events gathered, then sent newest first).
 */

export type RouteFaultKind = 'http_502' | 'http_503' | 'http_500' | 'timeout' | 'lost_response';
export type GatewayFaultKind = 'printed_qr_error' | 'printed_qr_bad_fields';
export type WebhookFaultKind = 'duplicate' | 'delay' | 'drop' | 'reorder';

export const ROUTE_FAULTS: readonly RouteFaultKind[] = ['http_502', 'http_503', 'http_500', 'timeout', 'lost_response'];
export const GATEWAY_FAULTS: readonly GatewayFaultKind[] = ['printed_qr_error', 'printed_qr_bad_fields'];
export const WEBHOOK_FAULTS: readonly WebhookFaultKind[] = ['duplicate', 'delay', 'drop', 'reorder'];

export interface RouteFault {
  id: string;
  target: 'route';
  method: string;
  path: string;
  fault: RouteFaultKind;
  remaining: number;
}

export interface GatewayFault {
  id: string;
  target: 'gateway';
  fault: GatewayFaultKind;
  remaining: number;
}

export interface WebhookFault {
  id: string;
  target: 'webhooks';
  fault: WebhookFaultKind;
  remaining: number;
  /** Only events with this name; null for every event. */
  event: string | null;
  delay_seconds: number;
  /** Reorder: the count to gather, and the webhook-ids gathered so far. */
  count: number;
  held: string[];
}

export interface IdempotencyFault {
  id: string;
  target: 'idempotency';
  method: string;
  path: string;
  fault: 'ignore_key';
  remaining: number;
}

export type Fault = RouteFault | GatewayFault | WebhookFault | IdempotencyFault;
export type NewFault = Omit<RouteFault, 'id'> | Omit<GatewayFault, 'id'> | Omit<WebhookFault, 'id'> | Omit<IdempotencyFault, 'id'>;

export class FaultBook {
  #faults: Fault[] = [];
  #seq = 0;

  add(fault: NewFault): Fault {
    const full = { ...fault, id: `flt_${++this.#seq}` } as Fault;
    this.#faults.push(full);
    return full;
  }

  list(): Fault[] {
    return this.#faults.map((f) => structuredClone(f));
  }

  /** Forgets every fault; returns reorder faults' held webhook-ids so they can be released. */
  clear(): string[] {
    const held = this.#faults.flatMap((f) => (f.target === 'webhooks' ? f.held : []));
    this.#faults = [];
    return held;
  }

  /** Consumes one use of the first fault armed for this request, if any. */
  takeRouteFault(method: string, path: string, pattern: string): RouteFaultKind | null {
    if (this.#faults.length === 0) return null;
    const fault = this.#faults.find(
      (f): f is RouteFault => f.target === 'route' && f.method === method && (f.path === pattern || f.path === path),
    );
    if (fault === undefined) return null;
    this.#spend(fault);
    return fault.fault;
  }

  /** Whether this request's Idempotency-Key is to be ignored (one use of the fault consumed). */
  takeIgnoredKey(method: string, path: string, pattern: string): boolean {
    if (this.#faults.length === 0) return false;
    const fault = this.#faults.find((f): f is IdempotencyFault => f.target === 'idempotency' && f.method === method && (f.path === pattern || f.path === path));
    if (fault === undefined) return false;
    this.#spend(fault);
    return true;
  }

  takeGatewayFault(): GatewayFaultKind | null {
    const fault = this.#faults.find((f): f is GatewayFault => f.target === 'gateway');
    if (fault === undefined) return null;
    this.#spend(fault);
    return fault.fault;
  }

  /**
   * Every webhook fault that applies to this event, one use of each consumed. A reorder
   * fault gathers the event; once full it is removed and returned with its held ids.
   */
  takeWebhookFaults(event: string, webhookId: string): WebhookFault[] {
    const taken: WebhookFault[] = [];
    for (const f of [...this.#faults]) {
      if (f.target !== 'webhooks' || (f.event !== null && f.event !== event)) continue;
      if (f.fault === 'reorder') {
        f.held.push(webhookId);
        if (f.held.length >= f.count) this.#faults = this.#faults.filter((x) => x !== f);
      } else {
        this.#spend(f);
      }
      taken.push({ ...f, held: [...f.held] });
    }
    return taken;
  }

  #spend(fault: Fault): void {
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#faults = this.#faults.filter((f) => f !== fault);
  }
}
