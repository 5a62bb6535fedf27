import { describe, expect, it } from 'vitest';
import { LANGS } from '../../electron/core/contract.ts';
import type { JournalProblem } from '../../electron/core/journal/log.ts';
import { chargeErrorText, chargeErrorTextKey } from './errorText.ts';
import { translate } from './i18n.ts';
import { journalStopText } from './messages.ts';

/** Issue 13 point 11: why charging stopped, as a sentence, in every language. */
const PROBLEMS: readonly JournalProblem[] = ['journal_broken', 'journal_disk_full', 'journal_io_error', 'journal_write_failed', 'journal_closed'];

describe('the journal stops charging with a sentence', () => {
  it.each(LANGS)('%s: the Charge refusal of each journal problem has its own sentence, never the core message', (lang) => {
    const seen = new Set<string>();
    for (const problem of PROBLEMS) {
      // The refusal as the core sends it across the bridge (JournalUnavailableError.toWire).
      const wire = { code: 'journal_unavailable' as const, message: 'English for the log', params: { problem } };
      expect(chargeErrorTextKey({ ...wire })).toBe(`error.problem.${problem}`);
      const text = chargeErrorText(lang, { ...wire });
      expect(text).not.toContain('English for the log');
      seen.add(text);
    }
    expect(seen.size).toBe(PROBLEMS.length);
    expect(translate(lang, 'error.code.journal_unavailable')).not.toBe(translate('en', 'error.code.internal'));
  });

  it('the status bar names the broken entry, or the failed write and that it heals by itself', () => {
    const broken = { seq: 12, segment: 'journal-2026-11-21.jsonl', line: 3, reason: 'hash does not match the content' };
    expect(journalStopText('en', { state: 'corrupt', broken, failureProblem: null })).toBe(
      'Charging is stopped: journal entry 12 (journal-2026-11-21.jsonl, line 3) is broken: its content was changed after it was written. A manager can start a new chain in the Shift journal.',
    );
    expect(journalStopText('pt-BR', { state: 'failed', broken: null, failureProblem: 'journal_disk_full' })).toMatch(/disco está cheio.*voltam sozinhas/);
    expect(journalStopText('es', { state: 'failed', broken: null, failureProblem: 'journal_io_error' })).toMatch(/error al guardar el diario.*se reanudan solos/);
    // A problem this renderer does not know still gets the general sentence.
    expect(journalStopText('en', { state: 'failed', broken: null, failureProblem: 'from_a_newer_core' })).toBe(translate('en', 'status.journal.stopped.journal_write_failed'));
    expect(journalStopText('en', { state: 'healthy', broken: null, failureProblem: null })).toBeNull();
    expect(journalStopText('en', { state: 'torn-tail-repaired', broken: null, failureProblem: null })).toBeNull();
  });
});
