import type { AcknowledgedBreak, BrokenEntry, JournalEntry, JournalPort, JournalStatus, VerifyResult } from '../journal/port.ts';
import type { Logger } from '../log.ts';
import type { SaleRow } from '../terminal/entries.ts';

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

/** The journal's health as the status bar shows it; `closed` while no journal is open. */
export function journalHealth(journal: JournalStatus | undefined): JournalHealth {
  if (!journal) return { state: 'closed', entries: 0, problem: null, broken: null, failureProblem: null, acknowledgedBreaks: [] };
  const broken = journal.corruption;
  return {
    state: journal.state,
    entries: journal.entries,
    problem: broken ? `entry ${broken.seq} (${broken.segment}, line ${broken.line}) is broken: ${broken.reason}` : journal.failure,
    broken,
    failureProblem: journal.failureProblem,
    acknowledgedBreaks: journal.acknowledgedBreaks,
  };
}

/**
 * A manager's way out of a broken journal: a new chain, signed by them, over the broken
 * entry; the old segments stay as they were found, and the till can charge again.
 */
export async function startNewChain(journal: JournalPort<SaleRow>, by: string, log: Logger): Promise<JournalEntry> {
  const entry = await journal.startNewChain(by);
  log.warn('journal: a new chain was started over a broken entry', { by, seq: entry.seq });
  return entry;
}

export async function verifyChain(journal: JournalPort<SaleRow>, log: Logger): Promise<VerifyResult> {
  const result = await journal.verify();
  if (!result.ok) log.error('journal verification found a broken entry', { firstBroken: result.firstBroken });
  return result;
}
