import { randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import type { ServiceClient } from '../api/client.ts';
import { ServiceError } from '../api/errors.ts';
import type { MedClaim, MedStatus, Payout } from '../api/routes/payouts.ts';
import { CoreError } from '../errors.ts';
import type { JournalEntry, JournalPort, Projection } from '../journal/port.ts';
import type { Logger } from '../log.ts';
import { claimability, claimBody, claimsToRead, daysSince, nextStatus, typedMedCaseId, type Claimability, type ClaimForm } from './rules.ts';

/**
 * The claims desk (issue 12): pay-outs and their MED claims, for supervisors and managers.
 * A claim is irreversible and one per pay-out, so the person's request is journaled (with
 * its reason and details, which stay on this machine and never reach the logs) before the
 * POST, and its answer after; an answer that may or may not have registered the claim is
 * journaled as unconfirmed and never repeated by the app: a supervisor records what the bank
 * said instead (recordBankAnswer). Claims have no webhook: the service's list is read on
 * Refresh and a few times a day (reference 4.6, 8), and the claims it no longer lists are
 * read by their id.
 */
export const CLAIM_REQUESTED = 'claim.requested';
export const CLAIM_OPENED = 'claim.opened';
export const CLAIM_OPERATOR_HANDLED = 'claim.operator_handled';
export const CLAIM_REFUSED = 'claim.refused';
export const CLAIM_UNCONFIRMED = 'claim.unconfirmed';
export const CLAIM_STATUS_CHANGED = 'claim.status_changed';
export const CLAIM_STATUS_BACKWARDS = 'claim.status_backwards';
/** A supervisor recorded what the bank said of a claim request left unconfirmed. */
export const CLAIM_BANK_ANSWERED = 'claim.bank_answered';
/** Entries a person does, which must say who (`data.by`). */
export const CLAIM_PERSON_ACTIONS = [CLAIM_REQUESTED, CLAIM_BANK_ANSWERED] as const;

/**
 * What the bank (or support) said of a request left unconfirmed: `not_registered`, so the
 * pay-out may be claimed again; or `exists`, with the claim's id, which is then followed.
 */
export const BANK_ANSWERS = ['not_registered', 'exists'] as const;
export type BankAnswer = (typeof BANK_ANSWERS)[number];

/**
 * Reference 8: the list answers at most 200 claims, the newest, and takes no offset (4.6):
 * a claim the journal knows that is older than those is read by its id instead (refresh).
 */
export const CLAIM_LIST_LIMIT = 200;
/**
 * Reference 8: 60 reads of a claim by id a minute per IP address. Refresh reads at most this
 * many a minute, leaving the rest for a person's checks (a resubmission, a bank's answer).
 */
export const GETS_PER_MINUTE = 30;
/** A few times a day (reference 4.6: "a few requests per day per open claim suffice"). */
export const CLAIM_POLL_MS = 4 * 3_600_000;
/**
 * Reference 8: 60 list requests a minute per IP address, which the tills share. Refresh asks
 * the service at most this many times a minute; past that, and for a minute after a 429, it
 * answers with the last list read.
 */
export const LIST_PER_MINUTE = 30;
const MINUTE_MS = 60_000;

export interface OperatorHandledClaim {
  service_id: string;
  message: string;
  at: number;
  by: string;
}

/** What this journal knows of the merchant's claims (a checkpointed projection). */
export interface DeskState {
  /** Operator-handled claims: the service never lists them, so this is their only record. */
  handled: OperatorHandledClaim[];
  /** The furthest status seen per tracked claim. */
  statuses: Record<string, MedStatus>;
  /** Pay-outs whose last request's outcome is unknown: not to be repeated blindly. */
  unconfirmed: Record<string, number>;
  /** Pay-outs with a tracked claim opened from this app. */
  opened: Record<string, string>;
  /** The latest status changes, newest last, for the supervisors' attention lists. */
  recent: ClaimNotice[];
  /**
   * Each claim as it was when its status last moved (or when a supervisor named it): what the
   * list shows of a closed claim that is no longer among the newest 200. Absent in journals
   * checkpointed before it was kept.
   */
  records?: Record<string, MedClaim>;
}

/** A claim's status moved: shown on every supervisor's attention list for a day. */
export interface ClaimNotice {
  med_case_id: string;
  service_id: string;
  status: MedStatus;
  at: number;
  money_refunded: boolean;
  refunded_cents: number | null;
}

/** How long a status change stays on the attention lists. */
export const NOTICE_MS = 86_400_000;
const NOTICES_KEPT = 50;

export const DESK_PROJECTION = 'claims.desk';
export const deskProjection: Projection<DeskState> = {
  initial: { handled: [], statuses: {}, unconfirmed: {}, opened: {}, recent: [], records: {} },
  reduce: (state: DeskState, entry: JournalEntry) => {
    const d = entry.data as Record<string, unknown>;
    const serviceId = typeof d['service_id'] === 'string' ? d['service_id'] : null;
    switch (entry.type) {
      case CLAIM_OPERATOR_HANDLED:
        if (serviceId === null) return state;
        return {
          ...state,
          handled: [...state.handled, { service_id: serviceId, message: String(d['message'] ?? ''), at: entry.at, by: String(d['by'] ?? '') }],
          unconfirmed: without(state.unconfirmed, serviceId),
        };
      case CLAIM_OPENED: {
        const id = d['med_case_id'];
        if (serviceId === null || typeof id !== 'string') return state;
        return { ...state, opened: { ...state.opened, [serviceId]: id }, statuses: { ...state.statuses, [id]: 'dispatching' }, unconfirmed: without(state.unconfirmed, serviceId) };
      }
      case CLAIM_UNCONFIRMED:
        return serviceId === null ? state : { ...state, unconfirmed: { ...state.unconfirmed, [serviceId]: entry.at } };
      case CLAIM_STATUS_CHANGED: {
        const id = d['med_case_id'];
        const to = d['to'];
        if (typeof id !== 'string' || typeof to !== 'string') return state;
        const notice: ClaimNotice = {
          med_case_id: id,
          service_id: serviceId ?? '',
          status: to as MedStatus,
          at: entry.at,
          money_refunded: d['money_refunded'] === true,
          refunded_cents: typeof d['refunded_cents'] === 'number' ? d['refunded_cents'] : null,
        };
        return {
          ...state,
          statuses: { ...state.statuses, [id]: to as MedStatus },
          recent: [...(state.recent ?? []), notice].slice(-NOTICES_KEPT),
          records: withRecord(state.records, id, d['claim']),
        };
      }
      case CLAIM_BANK_ANSWERED: {
        if (serviceId === null) return state;
        const unconfirmed = without(state.unconfirmed, serviceId);
        const id = d['med_case_id'];
        const claim = d['claim'] as MedClaim | undefined;
        if (d['answer'] !== 'exists' || typeof id !== 'string' || claim === undefined) return { ...state, unconfirmed };
        return {
          ...state,
          unconfirmed,
          opened: { ...state.opened, [serviceId]: id },
          statuses: { ...state.statuses, [id]: nextStatus(state.statuses[id] ?? null, claim.status_id).status },
          records: withRecord(state.records, id, claim),
        };
      }
      default:
        return state;
    }
  },
};

function withRecord(records: Record<string, MedClaim> | undefined, id: string, claim: unknown): Record<string, MedClaim> {
  if (claim === null || typeof claim !== 'object') return records ?? {};
  return { ...records, [id]: claim as MedClaim };
}

function without(record: Record<string, number>, key: string): Record<string, number> {
  if (!(key in record)) return record;
  const { [key]: _gone, ...rest } = record;
  return rest;
}

export interface PayoutRow {
  payout: Payout;
  claim: Claimability;
  /** The tracked claim on it, if the service lists one. */
  med_case_id: string | null;
}

export type ClaimRow =
  | {
      handling: 'tracked';
      claim: MedClaim;
      /** Never earlier than a status seen before (reference 3.2); `backwards` when an answer tried. */
      status: MedStatus;
      backwards: boolean;
      days_open: number;
      /** Reference 4.6: only a dispatching claim the provider rejected may be sent again. */
      resubmittable: boolean;
      /** The last request this journal sent for its pay-out, to prefill a resubmission; null if opened elsewhere. */
      request: { reason: string; details: string; external_id: string | null } | null;
    }
  | { handling: 'manual'; service_id: string; message: string; at: number; by: string };

export interface BankAnswerRecorded {
  service_id: string;
  answer: BankAnswer;
  /** The claim now followed, when the bank said it exists. */
  med_case_id: string | null;
}

export type OpenOutcome =
  | { handling: 'tracked'; med_case_id: string; warning: string | null; message: string }
  | { handling: 'manual'; message: string };

export interface DeskDeps {
  client: ServiceClient;
  journal: JournalPort<object>;
  clock: Clock;
  log: Logger;
  /** A claim's status changed (or an answer tried to move it back): the attention lists hear. */
  onChange?: () => void;
}

export class ClaimsDesk {
  readonly #d: DeskDeps;
  /** When the list was asked for, over the last minute. */
  #asked: number[] = [];
  #pausedUntil = Number.NEGATIVE_INFINITY;
  #lastRows: ClaimRow[] | null = null;
  #refreshing: Promise<ClaimRow[]> | null = null;
  /** Answers that tried to move a claim back, flagged once each. */
  readonly #flagged = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  /** One request per pay-out at a time: two presses of Submit make one POST. */
  readonly #opening = new Set<string>();
  /** When each claim was last read by its id, and what came back (null: not found). */
  readonly #read = new Map<string, { at: number; claim: MedClaim | null }>();
  /** Reads by id over the last minute, and a minute's pause after a 429 (reference 8). */
  #gets: number[] = [];
  #getsPausedUntil = Number.NEGATIVE_INFINITY;

  constructor(deps: DeskDeps) {
    this.#d = deps;
  }

  get #state(): DeskState {
    return this.#d.journal.projection<DeskState>(DESK_PROJECTION);
  }

  /** Polls the claims a few times a day while the core runs. */
  start(): void {
    this.#timer ??= setInterval(() => void this.refresh(true).catch((err: unknown) => this.#d.log.warn('claims could not be refreshed', { error: err })), CLAIM_POLL_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Pay-outs newest first (one page), each with whether it may be claimed and why not. */
  async payouts(page: { limit?: number; offset?: number } = {}): Promise<PayoutRow[]> {
    const [payouts, claims] = await Promise.all([this.#d.client.listPayouts(page), this.#d.client.listMedClaims({ limit: CLAIM_LIST_LIMIT })]);
    const state = this.#state;
    // The list has the newest 200 claims only; the journal knows the older ones it followed.
    const tracked = new Map(Object.values(state.records ?? {}).map((c) => [c.service_id, c.med_case_id]));
    for (const c of claims) tracked.set(c.service_id, c.med_case_id);
    const handled = new Set(state.handled.map((h) => h.service_id));
    const now = this.#d.clock.now();
    return payouts.map((payout) => {
      const medCaseId = tracked.get(payout.service_id) ?? state.opened[payout.service_id] ?? null;
      return {
        payout,
        med_case_id: medCaseId,
        claim: claimability(payout, now, { claimed: medCaseId !== null || handled.has(payout.service_id), unconfirmed: payout.service_id in state.unconfirmed }),
      };
    });
  }

  /**
   * Opens a claim on a pay-out: the request journaled first, then one POST, then its answer.
   * `resubmitOf`: a dispatching claim the provider rejected (outcome_hint.retryable), sent
   * again with new reason and details; it keeps its med_case_id.
   */
  async open(by: string, serviceId: string, form: ClaimForm, resubmitOf: string | null = null): Promise<OpenOutcome> {
    const body = claimBody(form);
    if (resubmitOf !== null) {
      const claim = await this.#getClaim(resubmitOf);
      if (claim.service_id !== serviceId || claim.status_id !== 'dispatching' || claim.outcome_hint?.retryable !== true) {
        throw new CoreError('conflict', 'This claim cannot be sent again: the provider has not rejected it (or it moved on). Keep following it in the list.', { problem: 'claim_not_retryable' });
      }
    } else if (serviceId in this.#state.unconfirmed) {
      throw new CoreError(
        'conflict',
        'An earlier request for this pay-out may have reached the operator: do not repeat it. Check the claims list in a few minutes, then contact support if it is missing.',
        { problem: 'claim_not_confirmed' },
      );
    }
    if (this.#opening.has(serviceId)) throw new CoreError('conflict', 'A claim for this pay-out is being sent right now; wait for its answer.', { problem: 'claim_in_flight' });
    this.#opening.add(serviceId);
    const intent = randomUUID();
    try {
      await this.#d.journal.append([
        { type: CLAIM_REQUESTED, data: { by, intent_id: intent, service_id: serviceId, reason: body.reason, details: body.details, external_id: body.external_id ?? null, resubmit_of: resubmitOf } },
      ]);
      let answer;
      try {
        answer = await this.#d.client.openMedClaim({ service_id: serviceId, ...body });
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        const unknown = err.outcome === 'unknown';
        await this.#d.journal.append([
          {
            type: unknown ? CLAIM_UNCONFIRMED : CLAIM_REFUSED,
            data: { intent_id: intent, service_id: serviceId, reason: err.reason, http_status: err.httpStatus, problem: err.problem },
          },
        ]);
        // Ids and reasons only: the claim's own texts stay in the journal.
        this.#d.log.warn(unknown ? 'a claim request was not confirmed; it is not repeated' : 'a claim was refused', { service_id: serviceId, ...err.logFields() });
        throw err;
      }
      if (answer.handling === 'manual') {
        await this.#d.journal.append([{ type: CLAIM_OPERATOR_HANDLED, data: { intent_id: intent, service_id: serviceId, message: answer.message, by } }]);
        this.#d.log.info('a claim went to the operator', { service_id: serviceId });
        return { handling: 'manual', message: answer.message };
      }
      await this.#d.journal.append([{ type: CLAIM_OPENED, data: { intent_id: intent, service_id: serviceId, med_case_id: answer.med_case_id, warning: answer.warning } }]);
      this.#d.log.info('a claim was opened', { service_id: serviceId, med_case_id: answer.med_case_id });
      this.#d.onChange?.();
      return { handling: 'tracked', med_case_id: answer.med_case_id, warning: answer.warning, message: answer.message };
    } finally {
      this.#opening.delete(serviceId);
    }
  }

  /**
   * A supervisor records what the bank (or support) said of a claim request left unconfirmed
   * (`claim_not_confirmed`, a lost answer), which the app never sends again by itself:
   * `not_registered` lets the pay-out be claimed again (by hand: nothing is sent now);
   * `exists` names the claim, which is read from the service and followed only if it is this
   * pay-out's. A wrong id is refused with a sentence and nothing is journaled.
   */
  async recordBankAnswer(by: string, serviceId: string, answer: BankAnswer, medCaseIdTyped: string | null): Promise<BankAnswerRecorded> {
    if (!(serviceId in this.#state.unconfirmed)) {
      throw new CoreError('conflict', 'No claim request for this pay-out is waiting for the bank’s answer: it was confirmed, or an answer was already recorded.', {
        problem: 'claim_not_unconfirmed',
      });
    }
    // One answer per pay-out at a time: a second press while the first is under way is refused.
    if (this.#opening.has(serviceId)) throw new CoreError('conflict', 'An answer for this pay-out is being recorded right now; wait for it.', { problem: 'claim_in_flight' });
    this.#opening.add(serviceId);
    try {
      return await this.#recordBankAnswer(by, serviceId, answer, medCaseIdTyped);
    } finally {
      this.#opening.delete(serviceId);
    }
  }

  async #recordBankAnswer(by: string, serviceId: string, answer: BankAnswer, medCaseIdTyped: string | null): Promise<BankAnswerRecorded> {
    if (answer === 'not_registered') {
      await this.#d.journal.append([{ type: CLAIM_BANK_ANSWERED, data: { by, service_id: serviceId, answer, med_case_id: null } }]);
      this.#d.log.info('a supervisor recorded that no claim was registered; the pay-out may be claimed again', { service_id: serviceId });
      this.#d.onChange?.();
      return { service_id: serviceId, answer, med_case_id: null };
    }
    const id = typedMedCaseId(medCaseIdTyped ?? '');
    let claim: MedClaim;
    try {
      claim = await this.#getClaim(id);
    } catch (err) {
      // Reference 4.6: 404 `not_found` is a claim that does not exist or is another merchant's.
      if (err instanceof ServiceError && (err.httpStatus === 404 || err.httpStatus === 422)) {
        throw new CoreError('invalid_argument', `The payment service has no claim ${id} among this merchant's claims; check the id with the bank or support. Nothing was recorded.`, {
          field: 'medCaseId',
          problem: 'claim_id_unknown',
        });
      }
      throw err;
    }
    if (claim.service_id !== serviceId) {
      throw new CoreError('invalid_argument', `The claim ${id} is about pay-out ${claim.service_id}, not ${serviceId}; check the id with the bank or support. Nothing was recorded.`, {
        field: 'medCaseId',
        problem: 'claim_other_payout',
      });
    }
    await this.#d.journal.append([{ type: CLAIM_BANK_ANSWERED, data: { by, service_id: serviceId, answer, med_case_id: id, claim: { ...claim } } }]);
    this.#read.set(id, { at: this.#d.clock.now(), claim });
    this.#d.log.info('a supervisor named the claim of an unconfirmed request; it is followed', { service_id: serviceId, med_case_id: id });
    this.#d.onChange?.();
    return { service_id: serviceId, answer, med_case_id: id };
  }

  /** Reads one claim by its id, counted against reference 8's 60 a minute. */
  async #getClaim(id: string): Promise<MedClaim> {
    this.#gets.push(this.#d.clock.now());
    try {
      return await this.#d.client.getMedClaim(id);
    } catch (err) {
      if (err instanceof ServiceError && err.httpStatus === 429) this.#getsPausedUntil = this.#d.clock.now() + MINUTE_MS;
      throw err;
    }
  }

  /**
   * The claims the journal knows that the list did not answer, read by id (claimsToRead says
   * which), within GETS_PER_MINUTE. A failed read stops the round: the rest keep what was
   * known, and the next refresh tries again.
   */
  async #readOffList(listed: ReadonlySet<string>): Promise<void> {
    const now = this.#d.clock.now();
    this.#gets = this.#gets.filter((at) => now - at < MINUTE_MS);
    const budget = now < this.#getsPausedUntil ? 0 : GETS_PER_MINUTE - this.#gets.length;
    const state = this.#state;
    const records = state.records ?? {};
    const ids = new Set([...Object.keys(state.statuses), ...Object.values(state.opened)]);
    const known = [...ids].map((id) => ({ med_case_id: id, status: state.statuses[id] ?? 'dispatching', hasRecord: id in records, readAt: this.#read.get(id)?.at ?? null }));
    for (const id of claimsToRead(known, listed, budget)) {
      try {
        this.#read.set(id, { at: this.#d.clock.now(), claim: await this.#getClaim(id) });
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        if (err.httpStatus === 404) {
          // A claim does not vanish (reference 3.2 has no such move): logged, shown as last known.
          this.#read.set(id, { at: this.#d.clock.now(), claim: null });
          this.#d.log.warn('a claim this journal follows is not found at the service', { med_case_id: id });
          continue;
        }
        this.#d.log.warn('claims older than the service lists could not be read; they show as last known', { med_case_id: id, ...err.logFields() });
        return;
      }
    }
  }

  /** Status changes of the last day, newest first, for the attention lists. */
  notices(): ClaimNotice[] {
    const now = this.#d.clock.now();
    return (this.#state.recent ?? []).filter((n) => now - n.at < NOTICE_MS).reverse();
  }

  /** Every claim: the service's list and the operator-handled ones this journal holds. */
  async claims(): Promise<ClaimRow[]> {
    return this.refresh(false);
  }

  /**
   * Reads the service's list (one request for every claim) and journals each status that
   * moved. Presses while a read is under way share it; past LIST_PER_MINUTE reads a minute,
   * or within a minute of a 429, the last list read is the answer (reference 8).
   */
  async refresh(force: boolean): Promise<ClaimRow[]> {
    if (this.#refreshing) return this.#refreshing;
    const now = this.#d.clock.now();
    this.#asked = this.#asked.filter((at) => now - at < MINUTE_MS);
    const limited = now < this.#pausedUntil || this.#asked.length >= LIST_PER_MINUTE;
    if (limited && this.#lastRows && !force) return this.#lastRows;
    this.#asked.push(now);
    this.#refreshing = this.#refresh()
      .catch((err: unknown) => {
        // Reference 8: after a 429, wait a minute.
        if (err instanceof ServiceError && err.httpStatus === 429) this.#pausedUntil = this.#d.clock.now() + MINUTE_MS;
        throw err;
      })
      .finally(() => (this.#refreshing = null));
    return this.#refreshing;
  }

  async #refresh(): Promise<ClaimRow[]> {
    const listed = await this.#d.client.listMedClaims({ limit: CLAIM_LIST_LIMIT });
    const onList = new Set(listed.map((c) => c.med_case_id));
    await this.#readOffList(onList);
    const state = this.#state;
    const kept = state.statuses;
    // Off the list: the last read by id, else the record journaled when it last moved.
    const offList: MedClaim[] = [];
    for (const id of new Set([...Object.keys(kept), ...Object.values(state.opened)])) {
      if (onList.has(id)) continue;
      const claim = this.#read.get(id)?.claim ?? state.records?.[id];
      if (claim !== undefined && claim !== null) offList.push(claim);
    }
    offList.sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
    const requests = new Map<string, { reason: string; details: string; external_id: string | null }>();
    for (const e of await this.#d.journal.eventsOfType(CLAIM_REQUESTED)) {
      const d = e.data as Record<string, unknown>;
      requests.set(String(d['service_id']), { reason: String(d['reason']), details: String(d['details']), external_id: typeof d['external_id'] === 'string' ? d['external_id'] : null });
    }
    const changes: Array<{ type: string; data: Record<string, unknown> }> = [];
    const rows: ClaimRow[] = [...listed, ...offList].map((claim) => {
      const before = kept[claim.med_case_id] ?? null;
      const { status, backwards } = nextStatus(before, claim.status_id);
      const flag = `${claim.med_case_id}:${claim.status_id}`;
      if (backwards && !this.#flagged.has(flag)) {
        this.#flagged.add(flag);
        changes.push({ type: CLAIM_STATUS_BACKWARDS, data: { med_case_id: claim.med_case_id, kept: status, answered: claim.status_id } });
      } else if (!backwards && status !== before) {
        changes.push({
          type: CLAIM_STATUS_CHANGED,
          data: {
            med_case_id: claim.med_case_id,
            service_id: claim.service_id,
            from: before,
            to: status,
            money_refunded: claim.money_refunded,
            refunded_cents: claim.refunded_cents,
            // What the list shows of it once it is no longer among the newest 200.
            claim: { ...claim },
          },
        });
      }
      return {
        handling: 'tracked',
        claim,
        status,
        backwards,
        days_open: daysSince(claim.created_at, this.#d.clock.now()),
        resubmittable: status === 'dispatching' && claim.outcome_hint?.retryable === true,
        request: requests.get(claim.service_id) ?? null,
      };
    });
    if (changes.length > 0) {
      await this.#d.journal.append(changes);
      this.#d.onChange?.();
    }
    const handled: ClaimRow[] = state.handled.map((h) => ({ handling: 'manual', ...h }));
    this.#lastRows = [...rows, ...handled];
    return this.#lastRows;
  }
}
