/** What both fault campaigns (campaign.ts, one core; cores.ts, several) report at their end, beside what is each one's own. */
import type { VerifyResult } from '../core/journal/port.ts';
import type { AuditReport } from './audit.ts';

export interface CampaignOutcome {
  payments: { paid: number; late: number; refused: number };
  /** Refunds the supervisor asked for, those with a lost answer armed, and the drain's answers. */
  refunds: { asked: number; faulted: number; wasMade: number; sentAgain: number };
  /** The cashier's wait for Paid that ran out (the next sale was rung up anyway). */
  waitsTimedOut: number;
  durationMs: number;
  drainMs: number;
  /** False when the drain's bound passed before the cores stopped changing. */
  drained: boolean;
  audit: AuditReport;
  /** The journal's own verify: every entry's hash chained to the one before, across the kills. */
  journalVerify: VerifyResult;
  dataDir: string | null;
}
