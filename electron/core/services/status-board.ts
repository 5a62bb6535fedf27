import type { Lang } from '../../shared/lang.ts';
import type { DeviceInfo } from '../devices/registry.ts';
import type { ShiftView } from '../terminal/shift-report.ts';
import type { TerminalStats } from '../terminal/context.ts';
import type { WebhookReceiver } from '../webhooks/receiver.ts';
import type { JournalHealth } from './journal-care.ts';
import type { ServiceStatus } from './service-health.ts';

export type CoreState = 'stopped' | 'starting' | 'ready' | 'stopping' | 'failed';

export interface WebhookStatus {
  /** The receiver's address, or null when no signing secret is configured (polling only). */
  url: string | null;
  /** 'webhooks': payments arrive by webhook; 'polling': the last one was found by polling. */
  mode: 'webhooks' | 'polling' | 'waiting';
  lastAt: string | null;
  refused: number;
}

/** Which core serves the merchant, on a journal shared by several cores: its name and when it took over (ISO 8601). */
export interface ServingCore {
  core: string;
  since: string;
}

export interface CoreStatus {
  version: string;
  state: CoreState;
  startedAt: string | null;
  lang: Lang;
  /** The checkout the asking connection rings sales up on (a paired till's own, else the store computer's). */
  terminal: { storeId: number; checkoutId: number };
  /** The paired device the asking connection is, or null for the store computer's own windows. */
  device: DeviceInfo | null;
  service: ServiceStatus;
  webhooks: WebhookStatus;
  journal: JournalHealth;
  /** Payments that matched no sale: a supervisor must look at them. */
  unmatchedPayments: number;
  /** The open shift, if any. */
  shift: ShiftView | null;
  /**
   * On a journal shared by several cores (a database): the core that serves the merchant and
   * when it took over. Null on one computer's files.
   */
  serving: ServingCore | null;
}

/** How payments arrive, from the receiver and the terminal's last payment. */
export function webhookStatus(receiver: WebhookReceiver | null, stats: TerminalStats | undefined): WebhookStatus {
  const lastAt = stats?.lastWebhookAt ?? null;
  return {
    url: receiver?.url ?? null,
    mode: stats?.lastPaymentSource === 'tx_status' ? 'polling' : stats?.lastPaymentSource === 'webhook' ? 'webhooks' : 'waiting',
    lastAt: lastAt === null ? null : new Date(lastAt).toISOString(),
    refused: receiver?.stats().refused ?? 0,
  };
}

/**
 * What a sale changes in the status (the journal's entry count, the last webhook's time) is
 * pushed to every till at most this often: one status push per change, to 64 tills, was the
 * largest cost of a busy store (bench:tills). Health and service changes still go at once.
 */
export const STATUS_COALESCE_MS = 250;

/**
 * The `core.status` push: said at once when the state, the service or the journal's health
 * changes, coalesced when sales change it, and never twice the same.
 */
export class StatusBoard {
  #lastJson = '';
  #timer: NodeJS.Timeout | null = null;
  readonly #read: () => CoreStatus;
  readonly #push: (status: CoreStatus) => void;
  readonly #ready: () => boolean;

  constructor(deps: { read: () => CoreStatus; push: (status: CoreStatus) => void; ready: () => boolean }) {
    this.#read = deps.read;
    this.#push = deps.push;
    this.#ready = deps.ready;
  }

  emit(): void {
    const status = this.#read();
    this.#lastJson = JSON.stringify(status);
    this.#push(status);
  }

  emitIfChanged(): void {
    if (JSON.stringify(this.#read()) !== this.#lastJson) this.emit();
  }

  /** Within STATUS_COALESCE_MS, said once if it changed (and the core is still ready then). */
  schedule(): void {
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#ready()) this.emitIfChanged();
    }, STATUS_COALESCE_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
