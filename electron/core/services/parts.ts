import { join } from 'node:path';
import type { Clock } from '../../shared/clock.ts';
import { createServiceClient, type ServiceClient, type Timeouts } from '../api/client.ts';
import type { ServiceError } from '../api/errors.ts';
import type { RefundKeyContract } from '../api/routes/route.ts';
import { BackOffice, OFFICE_PERSON_ACTIONS } from '../backoffice/backoffice.ts';
import { CLAIM_PERSON_ACTIONS, ClaimsDesk, DESK_PROJECTION, deskProjection } from '../claims/desk.ts';
import type { CoreConfig } from '../config.ts';
import { Devices } from '../devices/devices.ts';
import { DEVICE_PERSON_ACTIONS, DEVICES_PROJECTION, devicesProjection, PAIRING_OFFERS_PROJECTION, pairingOffersProjection } from '../devices/registry.ts';
import { CoreError } from '../errors.ts';
import type { JournalDefinition, JournalOpener, JournalPort, SharedJournal } from '../journal/port.ts';
import { openJournal, type JournalFs, type ProbeTimers } from '../journal/journal.ts';
import type { Logger } from '../log.ts';
import { Operators } from '../operators/operators.ts';
import { RECEIPT_PERSON_ACTIONS } from '../receipts/receipts.ts';
import { OPERATOR_PERSON_ACTIONS, OPERATORS_PROJECTION, operatorsProjection } from '../operators/registry.ts';
import { SIGN_INS_PROJECTION, signInsProjection } from '../operators/sign-ins.ts';
import type { ServiceEndpoint } from '../service-endpoint.ts';
import type { SaleRow } from '../terminal/entries.ts';
import { Shifts } from '../terminal/shifts.ts';
import { Terminal, TERMINAL_JOURNAL, type CheckoutKey } from '../terminal/terminal.ts';
import type { ServingCore } from './status-board.ts';
import { InboxApplier, startInboxReceiver, type WebhookInbox } from '../webhooks/inbox.ts';
import { startWebhookReceiver, type WebhookDelivery, type WebhookReceiver } from '../webhooks/receiver.ts';

export interface PartsContext {
  config: CoreConfig;
  clock: Clock;
  sessionClock: Clock;
  log: Logger;
  /** The journal's file layer and probe timers (tests make the disk fail and fire timers). */
  journalFs?: JournalFs | undefined;
  journalTimers?: ProbeTimers | undefined;
  /**
   * Whether the provider honours refund keys (default: api/routes/route.ts REFUND_KEYS, not known).
   * Tests set it to prove both answers; a provider's documented answer belongs in routes.ts.
   */
  refundKeys?: RefundKeyContract | undefined;
  /** The journal the entry point chose (PostgreSQL on a server); the file journal in the data dir without one. */
  openJournal?: JournalOpener<SaleRow> | undefined;
  /**
   * The service client's timeouts (default: api/client.ts DEFAULT_TIMEOUTS). Tests that hold
   * a request unanswered shorten them, so the client gives up in seconds, not the counter's 8.
   */
  serviceTimeouts?: Partial<Timeouts> | undefined;
}

/**
 * What the core's journal is for, whichever adapter keeps it: the terminal's sales and
 * projections, and every part's person actions and projections. The import of an embedded
 * journal into a database opens both with it.
 */
export const CORE_JOURNAL: JournalDefinition<SaleRow> = {
  ...TERMINAL_JOURNAL,
  operatorActions: [...TERMINAL_JOURNAL.operatorActions, ...OPERATOR_PERSON_ACTIONS, ...DEVICE_PERSON_ACTIONS, ...OFFICE_PERSON_ACTIONS, ...CLAIM_PERSON_ACTIONS, ...RECEIPT_PERSON_ACTIONS],
  // The operators and devices too are read at start from the checkpoint, never from history.
  projections: { ...TERMINAL_JOURNAL.projections, [OPERATORS_PROJECTION]: operatorsProjection, [SIGN_INS_PROJECTION]: signInsProjection, [DEVICES_PROJECTION]: devicesProjection, [PAIRING_OFFERS_PROJECTION]: pairingOffersProjection, [DESK_PROJECTION]: deskProjection },
};

/** What the parts tell the core that composes them. */
export interface PartsHooks {
  /** Charging stops and resumes with the journal's writes: the status bar must say so at once. */
  journalHealthChanged: () => void;
  /** Sign-ins the core ended (idle, a changed operator), once per burst while the parts are open. */
  sessionsEnded: () => void;
  serviceAnswered: (reached: boolean, error: ServiceError | null) => void;
  checkoutsChanged: (checkouts: readonly CheckoutKey[]) => void;
  claimsChanged: () => void;
  /** Until the terminal is ready this throws, the receiver answers 503 and the service delivers again. */
  acceptWebhook: (delivery: WebhookDelivery) => ReturnType<Terminal['acceptWebhook']>;
}

/**
 * Whether this core took the lease from another core: a takeover, journaled. The first core
 * on a database takes it from no one, and the same installation restarted takes back its own
 * (compose.ts names a core by its machine and data dir): neither moves the merchant's core.
 */
export function tookOverFromAnother(shared: Pick<SharedJournal, 'holder' | 'previousHolder'>): boolean {
  return shared.previousHolder !== null && shared.previousHolder !== shared.holder;
}

/** After a takeover entry could not be written: the next try. */
const TAKEOVER_RETRY_MS = 2_000;

/**
 * What a started core holds: opened in order at start (the journal first, every other part
 * reads it) and closed at stop or after a failed start, whatever of them was opened. Each
 * is null until opened and after closing.
 */
export class CoreParts {
  journal: JournalPort<SaleRow> | null = null;
  operators: Operators | null = null;
  devices: Devices | null = null;
  receiver: WebhookReceiver | null = null;
  client: ServiceClient | null = null;
  terminal: Terminal | null = null;
  shifts: Shifts | null = null;
  backOffice: BackOffice | null = null;
  claims: ClaimsDesk | null = null;
  /** The webhook inbox's applier, on a journal shared by several cores (started once the core is ready). */
  inbox: InboxApplier | null = null;
  /** On a journal shared by several cores: this core, since it took over; null on the files. */
  serving: ServingCore | null = null;
  /** The service the entry point composed; closed with the parts, so a stopped core cannot start again. */
  endpoint: ServiceEndpoint | null;
  /** While standing by: the address that keeps webhooks in the inbox (null if it could not listen). */
  #standby: Promise<WebhookReceiver | null> | null = null;
  #takeoverRetry: NodeJS.Timeout | null = null;

  constructor(endpoint: ServiceEndpoint) {
    this.endpoint = endpoint;
  }

  async open(ctx: PartsContext, hooks: PartsHooks): Promise<void> {
    const { config, clock, log } = ctx;
    const definition = CORE_JOURNAL;
    const secret = this.endpoint?.webhookSecret ?? null;
    // A standby keeps the webhooks it receives in the inbox, for the active core to apply.
    const standingBy =
      secret === null
        ? undefined
        : (inbox: WebhookInbox) => {
            this.#standby = startInboxReceiver({ host: config.webhook.host, port: config.webhook.port, secret, clock, log, inbox }).then(
              (receiver) => {
                log.info('standing by: webhooks received here are kept in the inbox for the active core', { webhooks: receiver.url });
                return receiver;
              },
              (err: unknown) => {
                log.warn('the standby could not listen for webhooks; the service delivers them again to the active core', { error: err });
                return null;
              },
            );
          };
    const journal = ctx.openJournal
      ? await ctx.openJournal({ ...definition, clock, log, onHealthChange: hooks.journalHealthChanged, ...(standingBy ? { standingBy } : {}) })
      : await openJournal<SaleRow>({
          ...definition,
          dir: join(config.dataDir, 'journal'),
          clock,
          log,
          ...(ctx.journalFs ? { fs: ctx.journalFs } : {}),
          ...(ctx.journalTimers ? { timers: ctx.journalTimers } : {}),
          onHealthChange: hooks.journalHealthChanged,
        });
    this.journal = journal;
    // Took over: the inbox's address closes, and the core's own receiver opens on it below.
    const standbyPort = (await this.#closeStandby(log))?.port ?? null;
    if (journal.shared) {
      this.serving = { core: journal.shared.holder, since: new Date(clock.now()).toISOString() };
      if (tookOverFromAnother(journal.shared)) await this.#recordTakeover(journal, log);
      this.inbox = new InboxApplier({ inbox: journal.shared.inbox, accept: hooks.acceptWebhook, clock, log });
    }

    const operators = new Operators({ journal, clock, log, lockMinutes: config.lockMinutes, sessionClock: ctx.sessionClock });
    await operators.load();
    let telling = false;
    operators.onSessionsEnded(() => {
      // Once per burst, after the call that ended them: each till's push is its own status.
      if (telling) return;
      telling = true;
      queueMicrotask(() => {
        telling = false;
        if (this.operators === null) return; // stopped meanwhile: no till to tell
        hooks.sessionsEnded();
      });
    });
    this.operators = operators;
    const devices = new Devices({ journal, clock, log });
    devices.load();
    this.devices = devices;

    const endpoint = this.endpoint;
    if (endpoint === null) throw new CoreError('conflict', 'This core has stopped; start a new one.');
    if (secret !== null) {
      // A port the system picked while standing by is the one this core's webhooks were given.
      const port = config.webhook.port === 0 && standbyPort !== null ? standbyPort : config.webhook.port;
      this.receiver = await startWebhookReceiver({ host: config.webhook.host, port, secret, clock, log, accept: hooks.acceptWebhook });
    } else {
      log.warn('no webhook secret configured (POS_WEBHOOK_SECRET): payments are followed by polling only');
    }

    await endpoint.attach?.({ webhookUrl: this.receiver?.url ?? null, log });
    const client = createServiceClient({
      baseUrl: endpoint.url,
      token: endpoint.token,
      clock,
      log,
      onAnswer: hooks.serviceAnswered,
      ...(ctx.serviceTimeouts ? { timeouts: ctx.serviceTimeouts } : {}),
    });
    this.client = client;

    this.terminal = new Terminal({
      journal,
      client,
      clock,
      log,
      onChange: hooks.checkoutsChanged,
      ...(ctx.refundKeys === undefined ? {} : { refundKeys: ctx.refundKeys }),
    });
    await this.terminal.load();
    this.shifts = new Shifts(journal, clock);
    this.backOffice = new BackOffice({ client, journal, clock, log });
    this.claims = new ClaimsDesk({ client, journal, clock, log, onChange: hooks.claimsChanged });
    this.claims.start();
  }

  /** Once the core is ready: the inbox the standbys filled is applied, and then each row as it arrives. */
  async startInbox(): Promise<void> {
    await this.inbox?.start();
  }

  /** The takeover entry, once; if the journal does not take it now, tried again until it does or the core stops. */
  async #recordTakeover(journal: JournalPort<SaleRow>, log: Logger): Promise<void> {
    const shared = journal.shared;
    if (!shared) return;
    try {
      const entry = await shared.recordTakeover();
      this.serving = { core: shared.holder, since: new Date(entry.at).toISOString() };
      log.info('this core serves the merchant', { term: shared.term, holder: shared.holder, previous_holder: shared.previousHolder });
    } catch (err) {
      log.warn('the takeover could not be journaled yet; trying again', { error: err });
      this.#takeoverRetry = setTimeout(() => {
        this.#takeoverRetry = null;
        if (this.journal === journal) void this.#recordTakeover(journal, log);
      }, TAKEOVER_RETRY_MS);
      this.#takeoverRetry.unref();
    }
  }

  async #closeStandby(log: Logger): Promise<WebhookReceiver | null> {
    const standby = await this.#standby;
    this.#standby = null;
    if (!standby) return null;
    try {
      await standby.close();
    } catch (err) {
      log.warn('could not close the standby’s webhook address cleanly', { error: err });
    }
    return standby;
  }

  /** Closes whatever was opened, in order; a part that fails to close is logged and the others still close. */
  async close(log: Logger): Promise<void> {
    // Sign-outs the core made just before (idle, a changed operator) reach the journal before it closes.
    await this.operators?.journaled().catch(() => undefined);
    if (this.#takeoverRetry) clearTimeout(this.#takeoverRetry);
    this.#takeoverRetry = null;
    await this.#closeStandby(log);
    const { terminal, receiver, client, endpoint, journal, inbox } = this;
    const steps: Array<[string, (() => Promise<void>) | undefined]> = [
      ['webhook inbox', inbox ? () => inbox.stop() : undefined],
      ['terminal', terminal ? () => terminal.stop() : undefined],
      ['webhook receiver', receiver?.close],
      ['service client', client?.close],
      ['service endpoint', endpoint ? () => endpoint.close() : undefined],
      ['journal', journal ? () => journal.close() : undefined],
    ];
    for (const [name, close] of steps) {
      try {
        await close?.();
      } catch (err) {
        log.warn(`could not close the ${name} cleanly`, { error: err });
      }
    }
    this.terminal = null;
    this.shifts = null;
    this.inbox = null;
    this.serving = null;
    this.receiver = null;
    this.client = null;
    this.endpoint = null;
    this.journal = null;
    this.operators = null;
    this.devices = null;
    this.backOffice = null;
    this.claims?.stop();
    this.claims = null;
  }
}
