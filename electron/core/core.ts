import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { monotonicClock, type Clock } from '../shared/clock.ts';
import type { BackOffice } from './backoffice/backoffice.ts';
import type { FloorBoard, KnownCheckout } from './board/board.ts';
import { BoardPush } from './board/push.ts';
import { CustomerLangs, type CustomerLangView } from './backoffice/customer-lang.ts';
import type { ClaimsDesk } from './claims/desk.ts';
import { describeConfig, type CoreConfig, type Lang } from './config.ts';
import { connectionMay, type Connection } from './devices/connection.ts';
import type { Devices } from './devices/devices.ts';
import { CoreError } from './errors.ts';
import { EventHub } from './events.ts';
import type { JournalEntry, JournalPort, VerifyResult } from './journal/port.ts';
import { createAppLogger, type Logger } from './log.ts';
import type { Operators, Session } from './operators/operators.ts';
import { mayUse } from './operators/roles.ts';
import { Receipts } from './receipts/receipts.ts';
import { FileSecretStore, type SecretStore } from './secrets.ts';
import type { ServiceEndpoint } from './service-endpoint.ts';
import { Connections } from './services/connections.ts';
import { CheckoutPush, type AttentionView, type DisplayView, type PushEvents } from './services/checkout-push.ts';
import { journalHealth, startNewChain, verifyChain } from './services/journal-care.ts';
import { Lifecycle } from './services/lifecycle.ts';
import { OpenShift } from './services/open-shift.ts';
import { CoreParts, type PartsContext } from './services/parts.ts';
import { saveSecrets, type SecretsToSave } from './services/remember-secrets.ts';
import { ServiceHealth, type ServiceStatus } from './services/service-health.ts';
import { StatusBoard, webhookStatus, type CoreState, type CoreStatus } from './services/status-board.ts';
import { TillSettings, type Settings, type SettingsView } from './settings.ts';
import type { SaleRow } from './terminal/entries.ts';
import type { ShiftView } from './terminal/shift-report.ts';
import type { Shifts } from './terminal/shifts.ts';
import type { CheckoutKey, Terminal } from './terminal/terminal.ts';
import { isTimeZone } from './terminal/local-day.ts';

export type { AttentionView, DisplayView, PushEvents } from './services/checkout-push.ts';
export type { JournalHealth } from './services/journal-care.ts';
export type { ServiceStatus } from './services/service-health.ts';
export type { CoreState, CoreStatus, WebhookStatus } from './services/status-board.ts';
export type { SettingsView } from './settings.ts';
export { rememberSecrets } from './services/remember-secrets.ts';
export { STATUS_COALESCE_MS } from './services/status-board.ts';

/** What the entry point gives the core; the journal's file layer and timers and the refund-key contract go to its parts. */
export interface CoreDeps extends Pick<PartsContext, 'journalFs' | 'journalTimers' | 'refundKeys' | 'openJournal' | 'serviceTimeouts'> {
  /**
   * The payment service, composed by the entry point (electron/compose.ts): a real one or the
   * embedded sandbox. Its clock is domain time. The core closes it when it stops.
   */
  service: ServiceEndpoint;
  log?: Logger;
  /** Where secrets rest: the Electron shell passes one encrypted with safeStorage. */
  secrets?: SecretStore;
  /**
   * What the composition root has the core do once it is ready, before start() returns
   * (the embedded sandbox: its checkout 1's printed QR, through the back office). A failure
   * is logged; the core stays up.
   */
  afterStart?: (core: Core) => Promise<void>;
  /**
   * The clock of the tills' idle time and of a dropped page's grace (operators/sessions.ts):
   * monotonic by default, never the service's domain clock, which jumps. Tests move their own.
   */
  sessionClock?: Clock;
}

const PROBE_INTERVAL_MS = 15_000;
const STATUS_INTERVAL_MS = 5_000;
/** How often sign-ins idle past the lock minutes are ended without waiting for their next call. */
const IDLE_SWEEP_MS = 15_000;

const notReady = () => new CoreError('not_ready', 'The cashier app is still starting; try again in a moment.');

/**
 * The terminal core: plain Node, no Electron. Composes the parts a started till holds
 * (services/parts.ts: journal, service client, webhook receiver, terminal...) with the
 * settings, the open shift, the service's health and the pushes. Both shells create one,
 * start it, expose its handlers over their transport and forward its push events.
 */
export class Core {
  readonly config: CoreConfig;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events = new EventHub<PushEvents>();
  readonly secrets: SecretStore;
  /** The tills' idle time and a dropped page's grace are measured on it (operators/sessions.ts). */
  readonly sessionClock: Clock;

  #timers: NodeJS.Timeout[] = [];
  #closeLog: (() => void) | null = null;
  readonly #deps: CoreDeps;
  readonly #life: Lifecycle;
  readonly #parts: CoreParts;
  readonly #settings: TillSettings;
  readonly #board: StatusBoard;
  readonly #service: ServiceHealth;
  readonly #push: CheckoutPush;
  readonly #shift: OpenShift;
  readonly #connections: Connections;
  readonly #customerLangs = new CustomerLangs();
  #receipts: Receipts | null = null;
  readonly #boardPush: BoardPush;

  constructor(config: CoreConfig, deps: CoreDeps) {
    this.config = config;
    this.#deps = deps;
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
    const ready = () => this.#life.ready;
    this.#life = new Lifecycle(() => this.#board.emit());
    this.#parts = new CoreParts(deps.service);
    this.#settings = new TillSettings(config);
    this.#board = new StatusBoard({ read: () => this.status(), push: (status) => this.events.emit('core.status', status), ready });
    this.#service = new ServiceHealth(deps.service, { clock: this.clock, log: this.log, onChange: () => this.#board.emit() });
    this.#push = new CheckoutPush({ events: this.events, log: this.log, terminal: () => this.terminal, claims: () => this.#parts.claims, lang: (checkout) => this.customerLang(checkout.storeId).lang, ready, afterPush: () => this.#board.schedule() });
    this.#connections = new Connections(() => this.#parts.devices, () => this.checkout);
    this.#shift = new OpenShift({ shifts: () => this.shifts, terminal: () => this.terminal, onChange: () => this.#board.emit() });
    this.#boardPush = new BoardPush({
      clock: this.clock,
      log: this.log,
      reads: () => ({ sales: this.journal.sales, checkoutView: (checkout) => this.terminal.checkoutView(checkout) }),
      listCheckouts: () => this.#knownCheckouts(),
      mayWatch: (session) => connectionMay(this.connectionOf(session), 'till') && mayUse(this.#parts.operators?.caller(session)?.role ?? null, 'supervisor'),
      emit: (board) => this.events.emit('board.changed', board),
    });
  }

  get state(): CoreState {
    return this.#life.state;
  }

  /** The terminal, once the core is ready. */
  get terminal(): Terminal {
    return this.#whenReady(this.#parts.terminal);
  }

  get shifts(): Shifts {
    return this.#whenOpen(this.#parts.shifts);
  }

  /** The checkout this terminal rings sales up on (settings can change it). */
  get checkout(): CheckoutKey {
    return this.#settings.checkout;
  }

  /** The till's operators and their sign-ins, once the journal is open. */
  get operators(): Operators {
    return this.#whenOpen(this.#parts.operators);
  }

  /** The store's paired tills and customer displays, once the journal is open. */
  get devices(): Devices {
    return this.#whenOpen(this.#parts.devices);
  }

  /** Stores, checkouts and printed QR posters (issue 10), once the core is ready. */
  get backOffice(): BackOffice {
    return this.#whenReady(this.#parts.backOffice);
  }

  /** Pay-outs and their MED claims (issue 12), once the core is ready. */
  get claims(): ClaimsDesk {
    return this.#whenReady(this.#parts.claims);
  }

  /** Each till's receipt printer and printing on it (issue 29), once the core is ready. */
  get receipts(): Receipts {
    return this.#whenReady(this.#receipts);
  }

  get journal(): JournalPort<SaleRow> {
    return this.#whenOpen(this.#parts.journal);
  }

  /** A session's connection as it stands now: a device revoked since it connected may only pair again. */
  connectionOf(session: Session): Connection {
    return this.#connections.of(session);
  }

  /** The checkout a connection rings sales up on and shows: a paired device's own, else the store computer's. */
  checkoutFor(session: Session): CheckoutKey {
    return this.#connections.checkoutFor(session);
  }

  /** The status as one connection sees it: its own checkout and device. */
  statusFor(session: Session, status: CoreStatus = this.status()): CoreStatus {
    return this.#connections.statusFor(session, status);
  }

  /**
   * A device enters a pairing code (Devices.pair). Its checkout is left as the service has it:
   * one without a printed QR takes dynamic QRs, and the Stores screen says which mode it is in
   * and offers Print QR poster.
   */
  pairDevice(code: string, from: string): ReturnType<Devices['pair']> {
    return this.devices.pair(code, from);
  }

  displayView(checkout: CheckoutKey): Promise<DisplayView> {
    return this.#push.displayView(checkout);
  }

  /** Every sale of the merchant that needs a person, newest first. */
  attention(): Promise<AttentionView> {
    return this.#push.attention();
  }

  /**
   * The floor board (issue 29) for a supervisor's or a manager's session, its day counted in
   * `timeZone` (the screen's); the session hears `board.changed` from now on, until it leaves.
   */
  openBoard(session: Session, timeZone: string): Promise<FloorBoard> {
    if (!isTimeZone(timeZone)) return Promise.reject(new CoreError('invalid_argument', 'That time zone is not known.', { field: 'timeZone' }));
    return this.#boardPush.open(session, timeZone);
  }

  leaveBoard(session: Session): void {
    this.#boardPush.leave(session);
  }

  /** Whether a board counted in `timeZone` goes to the session (routing.ts). */
  boardWatching(session: Session, timeZone: string): boolean {
    return this.#boardPush.watching(session, timeZone);
  }

  /** The service's stores and checkouts, with the tills paired to each and this computer's own. */
  async #knownCheckouts(): Promise<KnownCheckout[]> {
    const own = this.checkout;
    const tills = this.devices.list().filter((d) => d.kind === 'till' && d.revokedAt === null);
    const named = (storeId: number, checkoutId: number, storeName: string | null, checkoutDesc: string | null): KnownCheckout => ({
      storeId,
      checkoutId,
      storeName,
      checkoutDesc,
      tills: tills.filter((d) => d.storeId === storeId && d.checkoutId === checkoutId).map((d) => d.name),
      storeComputer: own.storeId === storeId && own.checkoutId === checkoutId,
    });
    const known: KnownCheckout[] = [named(own.storeId, own.checkoutId, null, null), ...tills.map((d) => named(d.storeId, d.checkoutId, null, null))];
    let stores: Awaited<ReturnType<BackOffice['stores']>> = [];
    try {
      stores = await this.backOffice.stores();
      for (const store of stores) {
        for (const c of await this.backOffice.checkouts(store.store_id)) known.push(named(c.store_id, c.checkout_id, store.store_name, c.checkout_desc));
      }
    } catch (err) {
      // Without the service's listing the board still has this computer's and the paired tills' checkouts.
      this.log.warn('could not list the stores’ checkouts for the floor board', { error: err });
    }
    const storeNames = new Map(stores.map((s) => [s.store_id, s.store_name]));
    // The service's names win over the bare keys added first.
    const byKey = new Map<string, KnownCheckout>();
    for (const c of known) {
      const key = `${c.storeId}/${c.checkoutId}`;
      const before = byKey.get(key);
      byKey.set(key, { ...c, storeName: c.storeName ?? before?.storeName ?? storeNames.get(c.storeId) ?? null, checkoutDesc: c.checkoutDesc ?? before?.checkoutDesc ?? null });
    }
    return [...byKey.values()];
  }

  start(): Promise<void> {
    return this.#life.start(() => this.#open(), () => this.#close(), this.log);
  }

  async #open(): Promise<void> {
    this.log.info('core starting', { config: describeConfig(this.config) });
    // The data dir holds the journal and secrets: readable by this user only.
    await mkdir(this.config.dataDir, { recursive: true, mode: 0o700 });
    await this.#settings.load();
    const { journalFs, journalTimers, refundKeys, openJournal, serviceTimeouts, afterStart } = this.#deps;
    await this.#parts.open(
      { config: this.config, clock: this.clock, sessionClock: this.sessionClock, log: this.log, journalFs, journalTimers, refundKeys, openJournal, serviceTimeouts },
      {
        journalHealthChanged: () => this.#board.emitIfChanged(),
        sessionsEnded: () => this.events.emit('auth.changed', { setup: false, operator: null, lockMinutes: this.config.lockMinutes, ended: null }),
        serviceAnswered: (reached, error) => this.#service.answered(reached, error),
        checkoutsChanged: (checkouts) => {
          void this.#push.push(checkouts);
          this.#boardPush.checkoutsChanged(checkouts);
          // A till set to print every paid sale prints it as it is paid (receipts/receipts.ts).
          void this.#receipts?.checkoutsChanged(checkouts);
        },
        claimsChanged: () => this.#push.scheduleAttention(),
        acceptWebhook: (delivery) => this.terminal.acceptWebhook(delivery),
      },
    );
    await this.#shift.load();
    await this.#customerLangs.load(this.journal).catch((err: unknown) => this.log.warn('could not read the stores’ customer languages back; the default is spoken', { error: err }));
    this.#receipts = new Receipts({
      journal: this.journal,
      dataDir: this.config.dataDir,
      clock: this.clock,
      log: this.log,
      lang: () => this.#settings.lang,
      storeOf: async (storeId) => {
        const store = (await this.backOffice.stores()).find((s) => s.store_id === storeId);
        return store ? { name: store.store_name, address: store.address } : null;
      },
    });
    await this.#receipts.load();
    this.#life.readyAt(this.clock.now());
    await afterStart?.(this).catch((err: unknown) => this.log.warn('the start-up step of the composition root failed', { error: err }));
    // Webhooks a standby kept in the inbox are applied as soon as the terminal takes webhooks.
    await this.#parts.startInbox();
    this.terminal.start();
    await this.probeService();
    this.#timers.push(setInterval(() => void this.probeService(), PROBE_INTERVAL_MS));
    // Webhook and journal health change without an event of their own: re-check now and then.
    this.#timers.push(setInterval(() => this.#board.emitIfChanged(), STATUS_INTERVAL_MS));
    // Issue 25: a till left signed in is signed out on time even if its page never calls again.
    this.#timers.push(setInterval(() => this.#parts.operators?.sweepIdle(), IDLE_SWEEP_MS));
    for (const t of this.#timers) t.unref();
    this.log.info('core ready', { service: this.#deps.service.url, webhooks: this.#parts.receiver?.url ?? null });
  }

  async stop(): Promise<void> {
    if (!(await this.#life.stop(() => this.#close()))) return;
    this.log.info('core stopped');
    this.#closeLog?.();
  }

  status(): CoreStatus {
    const stats = this.#parts.terminal?.stats();
    return {
      version: pkg.version,
      state: this.#life.state,
      startedAt: this.#life.startedAt === null ? null : new Date(this.#life.startedAt).toISOString(),
      lang: this.#settings.lang,
      terminal: this.#settings.checkout,
      device: null,
      service: this.#service.status,
      webhooks: webhookStatus(this.#parts.receiver, stats),
      journal: journalHealth(this.#parts.journal?.status()),
      unmatchedPayments: stats?.unmatched ?? 0,
      shift: this.#shift.view,
      serving: this.#parts.serving,
    };
  }

  settings(): SettingsView {
    return this.#settings.view();
  }

  /** Changes and saves settings (a checkout's mode and printed QR are the back office's). */
  async updateSettings(patch: Settings): Promise<SettingsView> {
    const checkoutChanged = await this.#settings.update(patch);
    this.#board.emit();
    if (checkoutChanged && this.#parts.terminal) await this.#push.push([this.checkout]);
    return this.settings();
  }

  async setLang(lang: Lang): Promise<CoreStatus> {
    const changed = lang !== this.#settings.lang;
    await this.updateSettings({ lang });
    // Customer displays follow the store's language: each shown checkout's display hears of it.
    if (changed && this.#parts.terminal) await this.#push.push([this.checkout, ...this.devices.checkouts()]);
    return this.status();
  }

  /** The language a store's customers read on its poster and displays (issue 26 point 6). */
  customerLang(storeId: number): CustomerLangView {
    return this.#customerLangs.view(storeId, this.#settings.lang);
  }

  /**
   * A manager chooses the language of a store's customers, in their name; the store must be
   * the merchant's at the service. Its customer displays switch at once.
   */
  async setCustomerLang(by: string, storeId: number, lang: Lang): Promise<CustomerLangView> {
    if (!(await this.backOffice.stores()).some((s) => s.store_id === storeId)) {
      throw new CoreError('not_found', 'The payment service does not have that store for this merchant; reload the list.', { problem: 'office_not_found' });
    }
    if (await this.#customerLangs.set(this.journal, by, storeId, lang)) {
      await this.#push.push([this.checkout, ...this.devices.checkouts()].filter((c) => c.storeId === storeId));
    }
    return this.customerLang(storeId);
  }

  /** Charges on this terminal's checkout (or the one named), in the open shift, in the name of the operator signed in. */
  charge(input: { amountCents: number; externalId?: string; by: string; storeId?: number; checkoutId?: number }) {
    const own = this.checkout;
    return this.#shift.charge(input, { storeId: input.storeId ?? own.storeId, checkoutId: input.checkoutId ?? own.checkoutId });
  }

  saveSecrets(input: SecretsToSave): Promise<{ saved: string[]; store: string }> {
    return saveSecrets(this.secrets, this.log, input);
  }

  openShift(by: string, note: string | undefined): Promise<ShiftView> {
    return this.#shift.open(by, note);
  }

  /** `checkout`: the closing till's, whose pending sale the closer is warned of. */
  closeShift(by: string, note: string | undefined, confirmPending: boolean, checkout: CheckoutKey = this.checkout): Promise<ShiftView> {
    return this.#shift.close(by, note, confirmPending, checkout);
  }

  async startNewJournalChain(by: string): Promise<JournalEntry> {
    const entry = await startNewChain(this.journal, by, this.log);
    this.#board.emit();
    return entry;
  }

  async verifyJournal(): Promise<VerifyResult> {
    const result = await verifyChain(this.journal, this.log);
    this.#board.emit();
    return result;
  }

  probeService(): Promise<ServiceStatus> {
    return this.#service.probe(this.#parts.client);
  }

  async #close(): Promise<void> {
    this.#push.stop();
    this.#boardPush.stop();
    this.#board.stop();
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    this.#receipts = null;
    await this.#parts.close(this.log);
  }

  #whenOpen<T>(part: T | null): T {
    if (part === null) throw notReady();
    return part;
  }

  #whenReady<T>(part: T | null): T {
    if (!this.#life.ready) throw notReady();
    return this.#whenOpen(part);
  }
}
