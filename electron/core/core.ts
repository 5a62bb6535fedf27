import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { monotonicClock, type Clock } from '../shared/clock.ts';
import { createServiceClient, type ServiceClient } from './api/client.ts';
import type { RefundKeyContract } from './api/routes/route.ts';
import { ServiceError } from './api/errors.ts';
import { BackOffice, OFFICE_PERSON_ACTIONS } from './backoffice/backoffice.ts';
import { CLAIM_PERSON_ACTIONS, ClaimsDesk, DESK_PROJECTION, deskProjection, type ClaimNotice } from './claims/desk.ts';
import type { SettlementNotice } from './settlements/reconciler.ts';
import { describeConfig, type CoreConfig, type Lang } from './config.ts';
import type { Connection } from './devices/connection.ts';
import { Devices } from './devices/devices.ts';
import { DEVICE_PERSON_ACTIONS, DEVICES_PROJECTION, devicesProjection, type DeviceInfo } from './devices/registry.ts';
import { CoreError, type WireError } from './errors.ts';
import { EventHub } from './events.ts';
import { openJournal, type AcknowledgedBreak, type BrokenEntry, type Journal, type JournalEntry, type JournalFs, type ProbeTimers, type VerifyResult } from './journal/journal.ts';
import { createAppLogger, type Logger } from './log.ts';
import { Operators, type AuthStatus, type Session } from './operators/operators.ts';
import { OPERATOR_PERSON_ACTIONS, OPERATORS_PROJECTION, operatorsProjection } from './operators/registry.ts';
import { FileSecretStore, type SecretStore } from './secrets.ts';
import { SECRET_SERVICE_TOKEN, SECRET_WEBHOOK, type ServiceEndpoint } from './service-endpoint.ts';
import { readSettings, writeSettings, type Settings } from './settings.ts';
import type { SaleRow } from './terminal/entries.ts';
import type { ShiftView } from './terminal/shift-report.ts';
import { Shifts } from './terminal/shifts.ts';
import { Terminal, TERMINAL_JOURNAL, type CheckoutKey } from './terminal/terminal.ts';
import type { CheckoutView, SaleSummary, ScreenView } from './terminal/views.ts';
import { sameCanonical } from './sales/order.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhooks/receiver.ts';

export type CoreState = 'stopped' | 'starting' | 'ready' | 'stopping' | 'failed';

export interface ServiceStatus {
  mode: 'sandbox' | 'remote';
  /** Where the service answers: the endpoint the core was given says. */
  baseUrl: string | null;
  /** null = not checked yet. */
  reachable: boolean | null;
  checkedAt: string | null;
  problem: WireError | null;
}

export interface WebhookStatus {
  /** The receiver's address, or null when no signing secret is configured (polling only). */
  url: string | null;
  /** 'webhooks': payments arrive by webhook; 'polling': the last one was found by polling. */
  mode: 'webhooks' | 'polling' | 'waiting';
  lastAt: string | null;
  refused: number;
}

export interface JournalHealth {
  state: 'healthy' | 'torn-tail-repaired' | 'corrupt' | 'failed' | 'closed';
  entries: number;
  problem: string | null;
  /** While corrupt: the first broken entry, which a manager may start a new chain over. */
  broken: BrokenEntry | null;
  /** While failed: which sentence (journal_disk_full, journal_io_error, journal_write_failed). */
  failureProblem: string | null;
  /** Breaks acknowledged by a new chain, shown for ever. */
  acknowledgedBreaks: AcknowledgedBreak[];
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
}

export interface SettingsView {
  lang: Lang;
  storeId: number;
  checkoutId: number;
}

/**
 * What a customer display may read of its checkout: the screen and whether the customer must
 * wait, in the store's language; nothing of other sales, alerts or people.
 */
export interface DisplayView {
  store_id: number;
  checkout_id: number;
  now: number;
  lang: Lang;
  screen: ScreenView;
  /** A payment on this checkout waits for a person: the customer is asked to wait. */
  hold: boolean;
}

/** Every sale of the merchant, on any checkout, that still needs a person: a supervisor's list. */
export interface AttentionView {
  items: SaleSummary[];
  /** MED claims whose status moved in the last day (issue 12). */
  claims: ClaimNotice[];
  /** Settlements that need a person until each difference is acknowledged (issue 11). */
  settlements: SettlementNotice[];
}

/**
 * Push events, core → renderer. The map IS the contract for `listen`. Each shell sends a
 * connection only what is its (routing.ts): its checkout's views, and the merchant's
 * attention list when a supervisor or a manager is signed in on it.
 */
export interface PushEvents {
  'core.status': CoreStatus;
  /** A checkout's sales changed: its new view, sent to that checkout's tills. */
  'checkout.changed': CheckoutView;
  /** A checkout's display state changed: sent to that checkout's tills and customer displays. */
  'display.changed': DisplayView;
  /** The merchant-wide list of sales needing a person changed: sent to supervisors and managers. */
  'attention.changed': AttentionView;
  /**
   * The core ended sign-ins (idle, an operator's PIN or role changed, disabled): every till
   * receives its own sign-in as it stands now, so a page signed out shows Sign in at once.
   */
  'auth.changed': AuthStatus;
}

export interface CoreDeps {
  /**
   * The payment service, composed by the entry point (electron/compose.ts): a real one or the
   * embedded sandbox. Its clock is domain time. The core closes it when it stops.
   */
  service: ServiceEndpoint;
  log?: Logger;
  /** Where secrets rest: the Electron shell passes one encrypted with safeStorage. */
  secrets?: SecretStore;
  /** The journal's file layer and probe timers (tests make the disk fail and fire timers). */
  journalFs?: JournalFs;
  journalTimers?: ProbeTimers;
  /**
   * What the composition root has the core do once it is ready, before start() returns
   * (the embedded sandbox: its checkout 1's printed QR, through the back office). A failure
   * is logged; the core stays up.
   */
  afterStart?: (core: Core) => Promise<void>;
  /**
   * Whether the provider honours refund keys (default: api/routes.ts REFUND_KEYS, not known).
   * Tests set it to prove both answers; a provider's documented answer belongs in routes.ts.
   */
  refundKeys?: RefundKeyContract;
  /**
   * The clock of the tills' idle time and of a dropped page's grace (operators/sessions.ts):
   * monotonic by default, never the service's domain clock, which jumps. Tests move their own.
   */
  sessionClock?: Clock;
}

/**
 * `--remember-secrets` of both shells: keeps the secrets the environment gives in the
 * core's secret store for the next start. Deliberately not a bridge method: whoever holds
 * the bridge must not be able to replace the webhook secret and forge payments.
 */
export async function rememberSecrets(core: Core, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const serviceToken = env.POS_SERVICE_TOKEN?.trim();
  const webhookSecret = env.POS_WEBHOOK_SECRET?.trim();
  const { saved } = await core.saveSecrets({ ...(serviceToken ? { serviceToken } : {}), ...(webhookSecret ? { webhookSecret } : {}) });
  return saved;
}

/** Names in the secret store. */
export { SECRET_SERVICE_TOKEN, SECRET_WEBHOOK };

const PROBE_INTERVAL_MS = 15_000;
const ATTENTION_COALESCE_MS = 250;
/**
 * What a sale changes in the status (the journal's entry count, the last webhook's time) is
 * pushed to every till at most this often: one status push per change, to 64 tills, was the
 * largest cost of a busy store (bench:tills). Health and service changes still go at once.
 */
export const STATUS_COALESCE_MS = 250;
const STATUS_INTERVAL_MS = 5_000;
/** How often sign-ins idle past the lock minutes are ended without waiting for their next call. */
const IDLE_SWEEP_MS = 15_000;

/**
 * The terminal core: plain Node, no Electron. Owns the service client, the webhook
 * receiver, the follow-up polling and the sale journal. Both shells create one, start it,
 * expose its handlers over their transport and forward its push events.
 */
export class Core {
  readonly config: CoreConfig;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events = new EventHub<PushEvents>();
  readonly secrets: SecretStore;
  /** The tills' idle time and a dropped page's grace are measured on it (operators/sessions.ts). */
  readonly sessionClock: Clock;

  #state: CoreState = 'stopped';
  #startedAt: number | null = null;
  #lang: Lang;
  #service: ServiceStatus;
  #endpoint: ServiceEndpoint | null;
  #journal: Journal<SaleRow> | null = null;
  #receiver: WebhookReceiver | null = null;
  #client: ServiceClient | null = null;
  #terminal: Terminal | null = null;
  #shifts: Shifts | null = null;
  #shift: ShiftView | null = null;
  #checkout: CheckoutKey;
  #operators: Operators | null = null;
  #devices: Devices | null = null;
  #backOffice: BackOffice | null = null;
  #claims: ClaimsDesk | null = null;
  #lastAttentionJson = '';
  /**
   * The last checkout and display views pushed, per checkout: a change that leaves a view as
   * it was (a charge.done after its payment: a quarter of the pushes with 64 tills, issue 9)
   * is not pushed again. `now` aside, which every view carries.
   */
  readonly #pushed = new Map<string, { view: CheckoutView; display: DisplayView }>();
  #attentionTimer: NodeJS.Timeout | null = null;
  #statusTimer: NodeJS.Timeout | null = null;
  #timers: NodeJS.Timeout[] = [];
  #lastStatusJson = '';
  #closeLog: (() => void) | null = null;
  #starting: Promise<void> | null = null;
  readonly #journalDeps: Pick<CoreDeps, 'journalFs' | 'journalTimers'>;
  readonly #afterStart: CoreDeps['afterStart'];
  readonly #refundKeys: CoreDeps['refundKeys'];

  constructor(config: CoreConfig, deps: CoreDeps) {
    this.config = config;
    this.#journalDeps = { journalFs: deps.journalFs, journalTimers: deps.journalTimers };
    this.#afterStart = deps.afterStart;
    this.#refundKeys = deps.refundKeys;
    this.#endpoint = deps.service;
    this.clock = deps.service.clock;
    this.sessionClock = deps.sessionClock ?? monotonicClock;
    if (deps.log) {
      this.log = deps.log;
    } else {
      const own = createAppLogger(config.dataDir, this.clock);
      this.log = own;
      this.#closeLog = () => own.close();
    }
    this.secrets = deps.secrets ?? new FileSecretStore(join(config.dataDir, 'secrets.json'));
    this.#lang = config.lang;
    this.#checkout = { ...config.terminal };
    this.#service = {
      mode: deps.service.mode,
      baseUrl: deps.service.url,
      reachable: null,
      checkedAt: null,
      problem: null,
    };
  }

  get state(): CoreState {
    return this.#state;
  }

  /** The terminal, once the core is ready. */
  get terminal(): Terminal {
    if (!this.#terminal || this.#state !== 'ready') throw new CoreError('not_ready', 'The cashier app is still starting; try again in a moment.');
    return this.#terminal;
  }

  get shifts(): Shifts {
    if (!this.#shifts) throw new CoreError('not_ready', 'The cashier app is still starting; try again in a moment.');
    return this.#shifts;
  }

  /** The checkout this terminal rings sales up on (settings can change it). */
  get checkout(): CheckoutKey {
    return { ...this.#checkout };
  }

  /** The till's operators and their sign-ins, once the journal is open. */
  get operators(): Operators {
    if (!this.#operators) throw new CoreError('not_ready', 'The cashier app is still starting; try again in a moment.');
    return this.#operators;
  }

  /** The store's paired tills and customer displays, once the journal is open. */
  get devices(): Devices {
    if (!this.#devices) throw new CoreError('not_ready', 'The cashier app is still starting; try again in a moment.');
    return this.#devices;
  }

  /** Stores, checkouts and printed QR posters (issue 10), once the core is ready. */
  get backOffice(): BackOffice {
    if (!this.#backOffice || this.#state !== 'ready') throw new CoreError('not_ready', 'The cashier app is still starting; try again in a moment.');
    return this.#backOffice;
  }

  /** Pay-outs and their MED claims (issue 12), once the core is ready. */
  get claims(): ClaimsDesk {
    if (!this.#claims || this.#state !== 'ready') throw new CoreError('not_ready', 'The cashier app is still starting; try again in a moment.');
    return this.#claims;
  }

  /** A session's connection as it stands now: a device revoked since it connected may only pair again. */
  connectionOf(session: Session): Connection {
    const { connection } = session;
    if (connection.kind !== 'device') return connection;
    const device = this.#devices?.active(connection.device.id);
    return device ? { kind: 'device', device } : { kind: 'unpaired', from: 'revoked' };
  }

  /** The checkout a connection rings sales up on and shows: a paired device's own, else the store computer's. */
  checkoutFor(session: Session): CheckoutKey {
    const connection = this.connectionOf(session);
    return connection.kind === 'device' ? { storeId: connection.device.storeId, checkoutId: connection.device.checkoutId } : this.checkout;
  }

  /** The status as one connection sees it: its own checkout and device. */
  statusFor(session: Session, status: CoreStatus = this.status()): CoreStatus {
    const connection = this.connectionOf(session);
    return { ...status, terminal: this.checkoutFor(session), device: connection.kind === 'device' ? connection.device : null };
  }

  /**
   * A device enters a pairing code (Devices.pair). Its checkout is left as the service has it:
   * one without a printed QR takes dynamic QRs, and the Stores screen says which mode it is in
   * and offers Print QR poster.
   */
  pairDevice(code: string, from: string): ReturnType<Devices['pair']> {
    return this.devices.pair(code, from);
  }

  async displayView(checkout: CheckoutKey): Promise<DisplayView> {
    return toDisplayView(await this.terminal.checkoutView(checkout), this.#lang);
  }

  /** Every sale of the merchant that needs a person, newest first. */
  async attention(): Promise<AttentionView> {
    return { items: await this.terminal.attentionEverywhere(), claims: this.#claims?.notices() ?? [], settlements: this.terminal.reconciler.notices() };
  }

  get journal(): Journal<SaleRow> {
    if (!this.#journal) throw new CoreError('not_ready', 'The cashier app is still starting; try again in a moment.');
    return this.#journal;
  }

  async start(): Promise<void> {
    if (this.#state !== 'stopped') throw new CoreError('conflict', `The core cannot start while it is ${this.#state}.`);
    this.#starting = this.#start();
    try {
      await this.#starting;
    } finally {
      this.#starting = null;
    }
  }

  async #start(): Promise<void> {
    this.#setState('starting');
    this.log.info('core starting', { config: describeConfig(this.config) });
    try {
      // The data dir holds the journal and secrets: readable by this user only.
      await mkdir(this.config.dataDir, { recursive: true, mode: 0o700 });
      this.#applySettings(await readSettings(this.config.dataDir));
      this.#journal = await openJournal<SaleRow>({
        dir: join(this.config.dataDir, 'journal'),
        clock: this.clock,
        ...TERMINAL_JOURNAL,
        log: this.log,
        operatorActions: [...TERMINAL_JOURNAL.operatorActions, ...OPERATOR_PERSON_ACTIONS, ...DEVICE_PERSON_ACTIONS, ...OFFICE_PERSON_ACTIONS, ...CLAIM_PERSON_ACTIONS],
        // The operators and devices too are read at start from the checkpoint, never from history.
        projections: { ...TERMINAL_JOURNAL.projections, [OPERATORS_PROJECTION]: operatorsProjection, [DEVICES_PROJECTION]: devicesProjection, [DESK_PROJECTION]: deskProjection },
        ...(this.#journalDeps.journalFs ? { fs: this.#journalDeps.journalFs } : {}),
        ...(this.#journalDeps.journalTimers ? { timers: this.#journalDeps.journalTimers } : {}),
        // Charging stops and resumes with the journal's writes: the status bar must say so at once.
        onHealthChange: () => this.#emitStatusIfChanged(),
      });

      const operators = new Operators({ journal: this.#journal, clock: this.clock, log: this.log, lockMinutes: this.config.lockMinutes, sessionClock: this.sessionClock });
      await operators.load();
      let telling = false;
      operators.onSessionsEnded(() => {
        // Once per burst, after the call that ended them: each till's push is its own status.
        if (telling) return;
        telling = true;
        queueMicrotask(() => {
          telling = false;
          if (this.#operators === null) return; // stopped meanwhile: no till to tell
          this.events.emit('auth.changed', { setup: false, operator: null, lockMinutes: this.config.lockMinutes, ended: null });
        });
      });
      this.#operators = operators;
      const devices = new Devices({ journal: this.#journal, clock: this.clock, log: this.log });
      devices.load();
      this.#devices = devices;

      const endpoint = this.#endpoint;
      if (endpoint === null) throw new CoreError('conflict', 'This core has stopped; start a new one.');
      const secret = endpoint.webhookSecret;
      if (secret !== null) {
        this.#receiver = await startWebhookReceiver({
          host: this.config.webhook.host,
          port: this.config.webhook.port,
          secret,
          clock: this.clock,
          log: this.log,
          // Until the terminal is ready this throws, the receiver answers 503 and the service delivers again.
          accept: (delivery) => this.terminal.acceptWebhook(delivery),
        });
      } else {
        this.log.warn('no webhook secret configured (POS_WEBHOOK_SECRET): payments are followed by polling only');
      }

      await endpoint.attach?.({ webhookUrl: this.#receiver?.url ?? null, log: this.log });
      const baseUrl = endpoint.url;
      this.#client = createServiceClient({ baseUrl, token: endpoint.token, clock: this.clock, log: this.log, onAnswer: (reached, error) => this.#serviceAnswered(reached, error) });

      this.#terminal = new Terminal({
        journal: this.#journal,
        client: this.#client,
        clock: this.clock,
        log: this.log,
        onChange: (checkouts) => void this.#pushCheckouts(checkouts),
        ...(this.#refundKeys === undefined ? {} : { refundKeys: this.#refundKeys }),
      });
      await this.#terminal.load();
      this.#shifts = new Shifts(this.#journal, this.clock);
      this.#shift = await this.#shifts.current();
      this.#backOffice = new BackOffice({ client: this.#client, journal: this.#journal, clock: this.clock, log: this.log });
      this.#claims = new ClaimsDesk({ client: this.#client, journal: this.#journal, clock: this.clock, log: this.log, onChange: () => this.#scheduleAttention() });
      this.#claims.start();

      this.#startedAt = this.clock.now();
      this.#setState('ready');
      if (this.#afterStart) {
        try {
          await this.#afterStart(this);
        } catch (err) {
          this.log.warn('the start-up step of the composition root failed', { error: err });
        }
      }
      this.#terminal.start();
      await this.probeService();
      this.#timers.push(setInterval(() => void this.probeService(), PROBE_INTERVAL_MS));
      // Webhook and journal health change without an event of their own: re-check now and then.
      this.#timers.push(setInterval(() => this.#emitStatusIfChanged(), STATUS_INTERVAL_MS));
      // Issue 25: a till left signed in is signed out on time even if its page never calls again.
      this.#timers.push(setInterval(() => this.#operators?.sweepIdle(), IDLE_SWEEP_MS));
      for (const t of this.#timers) t.unref();
      this.log.info('core ready', { service: baseUrl, webhooks: this.#receiver?.url ?? null });
    } catch (err) {
      this.log.error('core failed to start', { error: err });
      await this.#closeResources();
      this.#setState('failed');
      throw err;
    }
  }

  async stop(): Promise<void> {
    // A stop asked for while starting (a quit during boot) waits for the start to settle,
    // so no resource is created after the stop closed them.
    await this.#starting?.catch(() => undefined);
    if (this.#state === 'stopped' || this.#state === 'stopping' || this.#state === 'failed') return;
    this.#setState('stopping');
    await this.#closeResources();
    this.#setState('stopped');
    this.log.info('core stopped');
    this.#closeLog?.();
  }

  status(): CoreStatus {
    const stats = this.#terminal?.stats();
    const hook = this.#receiver?.stats();
    const journal = this.#journal?.status();
    const lastAt = stats?.lastWebhookAt ?? null;
    return {
      version: pkg.version,
      state: this.#state,
      startedAt: this.#startedAt === null ? null : new Date(this.#startedAt).toISOString(),
      lang: this.#lang,
      terminal: { ...this.#checkout },
      device: null,
      service: { ...this.#service },
      webhooks: {
        url: this.#receiver?.url ?? null,
        mode: stats?.lastPaymentSource === 'tx_status' ? 'polling' : stats?.lastPaymentSource === 'webhook' ? 'webhooks' : 'waiting',
        lastAt: lastAt === null ? null : new Date(lastAt).toISOString(),
        refused: hook?.refused ?? 0,
      },
      journal: journal
        ? {
            state: journal.state,
            entries: journal.entries,
            problem: journal.corruption ? `entry ${journal.corruption.seq} (${journal.corruption.segment}, line ${journal.corruption.line}) is broken: ${journal.corruption.reason}` : journal.failure,
            broken: journal.corruption,
            failureProblem: journal.failureProblem,
            acknowledgedBreaks: journal.acknowledgedBreaks,
          }
        : { state: 'closed', entries: 0, problem: null, broken: null, failureProblem: null, acknowledgedBreaks: [] },
      unmatchedPayments: stats?.unmatched ?? 0,
      shift: this.#shift,
    };
  }

  settings(): SettingsView {
    return { lang: this.#lang, storeId: this.#checkout.storeId, checkoutId: this.#checkout.checkoutId };
  }

  /** Changes and saves settings (a checkout's mode and printed QR are the back office's). */
  async updateSettings(patch: Settings): Promise<SettingsView> {
    const checkoutChanged =
      (patch.storeId !== undefined && patch.storeId !== this.#checkout.storeId) || (patch.checkoutId !== undefined && patch.checkoutId !== this.#checkout.checkoutId);
    this.#lang = patch.lang ?? this.#lang;
    this.#checkout = { storeId: patch.storeId ?? this.#checkout.storeId, checkoutId: patch.checkoutId ?? this.#checkout.checkoutId };
    await writeSettings(this.config.dataDir, this.settings());
    this.#emitStatus();
    if (checkoutChanged && this.#terminal) await this.#pushCheckouts([this.#checkout]);
    return this.settings();
  }

  /** Charges on this terminal's checkout, in the open shift, in the name of the operator signed in. */
  async charge(input: { amountCents: number; externalId?: string; by: string; storeId?: number; checkoutId?: number }) {
    return this.terminal.charge({
      storeId: input.storeId ?? this.#checkout.storeId,
      checkoutId: input.checkoutId ?? this.#checkout.checkoutId,
      amountCents: input.amountCents,
      ...(input.externalId === undefined ? {} : { externalId: input.externalId }),
      by: input.by,
      ...(this.#shift ? { shiftId: this.#shift.shift_id } : {}),
    });
  }

  /**
   * Saves secrets for the next start (encrypted at rest). Values are never echoed back or
   * logged; the answer says only which were saved.
   */
  async saveSecrets(input: { serviceToken?: string; webhookSecret?: string }): Promise<{ saved: string[]; store: string }> {
    const saved: string[] = [];
    if (input.serviceToken !== undefined) {
      await this.secrets.set(SECRET_SERVICE_TOKEN, input.serviceToken);
      saved.push(SECRET_SERVICE_TOKEN);
    }
    if (input.webhookSecret !== undefined) {
      await this.secrets.set(SECRET_WEBHOOK, input.webhookSecret);
      saved.push(SECRET_WEBHOOK);
    }
    this.log.info('secrets saved; they take effect at the next start', { saved, store: this.secrets.kind });
    return { saved, store: this.secrets.kind };
  }

  async openShift(by: string, note: string | undefined): Promise<ShiftView> {
    this.#shift = await this.shifts.open(by, note);
    this.#emitStatus();
    return this.#shift;
  }

  /** `checkout`: the closing till's, whose pending sale the closer is warned of. */
  async closeShift(by: string, note: string | undefined, confirmPending: boolean, checkout: CheckoutKey = this.#checkout): Promise<ShiftView> {
    const view = await this.terminal.checkoutView(checkout);
    const pending = view.recent.filter((s) => s.status === 'pending' || s.status === 'requested').length;
    const closed = await this.shifts.close(by, note, pending, confirmPending);
    this.#shift = null;
    this.#emitStatus();
    return closed;
  }

  #applySettings(saved: Settings): void {
    if (saved.lang !== undefined && !this.config.explicit.lang) this.#lang = saved.lang;
    if (!this.config.explicit.terminal) {
      this.#checkout = { storeId: saved.storeId ?? this.#checkout.storeId, checkoutId: saved.checkoutId ?? this.#checkout.checkoutId };
    }
  }

  async setLang(lang: Lang): Promise<CoreStatus> {
    const changed = lang !== this.#lang;
    await this.updateSettings({ lang });
    // Customer displays follow the store's language: each shown checkout's display hears of it.
    if (changed && this.#terminal) await this.#pushCheckouts([this.#checkout, ...this.devices.checkouts()]);
    return this.status();
  }

  /**
   * A manager's way out of a broken journal: a new chain, signed by them, over the broken
   * entry; the old segments stay as they were found, and the till can charge again.
   */
  async startNewJournalChain(by: string): Promise<JournalEntry> {
    const entry = await this.journal.startNewChain(by);
    this.log.warn('journal: a new chain was started over a broken entry', { by, seq: entry.seq });
    this.#emitStatus();
    return entry;
  }

  async verifyJournal(): Promise<VerifyResult> {
    const result = await this.journal.verify();
    if (!result.ok) this.log.error('journal verification found a broken entry', { firstBroken: result.firstBroken });
    this.#emitStatus();
    return result;
  }

  /**
   * Is the service there and does it take our token? Any HTTP answer means reachable;
   * 401/403 means reachable but the token is refused, which a manager must fix.
   */
  async probeService(): Promise<ServiceStatus> {
    const client = this.#client;
    if (!client || this.#service.baseUrl === null) return this.#service;
    let reachable = true;
    let problem: WireError | null = null;
    try {
      await client.listWallets({ deadlineMs: 5_000 });
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      reachable = err.httpStatus !== null;
      problem = err.toWire();
      this.log.warn('service check failed', err.logFields());
    }
    const next: ServiceStatus = { ...this.#service, reachable, problem, checkedAt: new Date(this.clock.now()).toISOString() };
    const changed = next.reachable !== this.#service.reachable || next.problem?.code !== this.#service.problem?.code;
    this.#service = next;
    if (changed) this.#emitStatus();
    return next;
  }

  /**
   * Every call tells whether the service answered, not only the periodic check: the status
   * bar never shows the service reachable while its last calls failed, and shows it back as
   * soon as one succeeds.
   */
  #serviceAnswered(reached: boolean, error: ServiceError | null): void {
    // An HTTP refusal (a 4xx about one call) says the service is there; the check judges the token.
    if (reached && error !== null) return;
    const same = error === null ? this.#service.reachable === true && this.#service.problem === null : this.#service.reachable === false;
    if (same) return;
    this.#service = { ...this.#service, reachable: reached, problem: error ? error.toWire() : null, checkedAt: new Date(this.clock.now()).toISOString() };
    this.#emitStatus();
  }

  async #pushCheckouts(checkouts: readonly CheckoutKey[]): Promise<void> {
    const unique = new Map(checkouts.map((c) => [`${c.storeId}/${c.checkoutId}`, c]));
    for (const [key, checkout] of unique) {
      try {
        const view = await this.terminal.checkoutView(checkout);
        const display = toDisplayView(view, this.#lang);
        const last = this.#pushed.get(key);
        this.#pushed.set(key, { view, display });
        if (last === undefined || !sameCanonical({ ...last.view, now: 0 }, { ...view, now: 0 })) this.events.emit('checkout.changed', view);
        if (last === undefined || !sameCanonical({ ...last.display, now: 0 }, { ...display, now: 0 })) this.events.emit('display.changed', display);
      } catch (err) {
        this.log.warn('could not build a checkout view', { error: err });
      }
    }
    this.#scheduleAttention();
    this.#scheduleStatus();
  }

  #scheduleStatus(): void {
    if (this.#statusTimer !== null) return;
    this.#statusTimer = setTimeout(() => {
      this.#statusTimer = null;
      if (this.#state === 'ready') this.#emitStatusIfChanged();
    }, STATUS_COALESCE_MS);
    this.#statusTimer.unref();
  }

  /**
   * The merchant-wide list is read anew at most every ATTENTION_COALESCE_MS, however many
   * sales change meanwhile: a busy store's payments do not each rebuild it.
   */
  #scheduleAttention(): void {
    if (this.#attentionTimer !== null) return;
    this.#attentionTimer = setTimeout(() => {
      this.#attentionTimer = null;
      if (this.#state === 'ready') void this.#emitAttentionIfChanged();
    }, ATTENTION_COALESCE_MS);
    this.#attentionTimer.unref();
  }

  async #emitAttentionIfChanged(): Promise<void> {
    try {
      const attention = await this.attention();
      const json = JSON.stringify([attention.items.map((s) => [s.sale_id, s.status, s.description.attention]), attention.claims.map((c) => [c.med_case_id, c.status]), attention.settlements.map((s) => [s.settlement_id, s.open])]);
      if (json === this.#lastAttentionJson) return;
      this.#lastAttentionJson = json;
      this.events.emit('attention.changed', attention);
    } catch (err) {
      this.log.warn('could not build the attention list', { error: err });
    }
  }

  async #closeResources(): Promise<void> {
    // Sign-outs the core made just before (idle, a changed operator) reach the journal before it closes.
    await this.#operators?.journaled().catch(() => undefined);
    if (this.#attentionTimer !== null) clearTimeout(this.#attentionTimer);
    this.#attentionTimer = null;
    if (this.#statusTimer !== null) clearTimeout(this.#statusTimer);
    this.#statusTimer = null;
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    const steps: Array<[string, (() => Promise<void>) | undefined]> = [
      ['terminal', this.#terminal ? () => this.#terminal!.stop() : undefined],
      ['webhook receiver', this.#receiver?.close],
      ['service client', this.#client?.close],
      ['service endpoint', this.#endpoint ? () => this.#endpoint!.close() : undefined],
      ['journal', this.#journal ? () => this.#journal!.close() : undefined],
    ];
    for (const [name, close] of steps) {
      try {
        await close?.();
      } catch (err) {
        this.log.warn(`could not close the ${name} cleanly`, { error: err });
      }
    }
    this.#terminal = null;
    this.#shifts = null;
    this.#receiver = null;
    this.#client = null;
    this.#endpoint = null;
    this.#journal = null;
    this.#operators = null;
    this.#devices = null;
    this.#backOffice = null;
    this.#claims?.stop();
    this.#claims = null;
  }

  #setState(state: CoreState): void {
    this.#state = state;
    this.#emitStatus();
  }

  #emitStatus(): void {
    const status = this.status();
    this.#lastStatusJson = JSON.stringify(status);
    this.events.emit('core.status', status);
  }

  #emitStatusIfChanged(): void {
    if (JSON.stringify(this.status()) !== this.#lastStatusJson) this.#emitStatus();
  }
}

function toDisplayView(view: CheckoutView, lang: Lang): DisplayView {
  return { store_id: view.store_id, checkout_id: view.checkout_id, now: view.now, lang, screen: view.screen, hold: view.hold !== null };
}
