import { describe, expect, it } from 'vitest';
import { translate } from '../../../src/lib/i18n.ts';
import { attentionMessageKey, attentionSentence, attentionWordKey, codeText, issueText, statusWordKey, unmatchedReasonText } from '../../../src/lib/messages.ts';
import { LANGS } from '../../shared/lang.ts';
import { ATTENTION_REASONS, SALE_ISSUE_CODES, SALE_STATUSES } from './lifecycle.ts';
import { UNMATCHED_REASONS } from './matching.ts';

/**
 * The core's codes as the renderer words them (src/lib/messages.ts), kept beside the codes
 * so a new code cannot ship without its words. Issue 8, point 9: no internal words on screen. Every code the core can hand the screen
 * (a status, an attention reason, a contradiction, why a payment matched no sale) has its
 * words in every language, and none of them shows the code itself.
 */
// pix_id and service_id are the reference's own words, shown as such (e.g. a column name).
const internal = /\b(?!pix_id\b|service_id\b)[a-z]+_[a-z_]+\b/;

describe.each(LANGS)('%s', (lang) => {
  it('every contradiction code is a sentence, never the code', () => {
    for (const code of SALE_ISSUE_CODES) {
      const text = issueText(lang, code);
      expect(text, code).not.toBe(issueText(lang, 'not_a_code'));
      expect(text, code).not.toMatch(internal);
    }
    // A conflict's attention item says which contradiction in words.
    const sentence = attentionSentence(lang, { key: 'attention.conflict', params: { code: 'payment_ids_differ', detail: 'e2e:E1' } });
    expect(sentence).toContain(issueText(lang, 'payment_ids_differ'));
    expect(sentence).not.toContain('payment_ids_differ');
  });

  it('every attention reason has its word, its journal code text and its sentences', () => {
    for (const reason of ATTENTION_REASONS) {
      expect(translate(lang, attentionWordKey({ reason })), reason).not.toMatch(internal);
      expect(codeText(lang, 'reason', reason), reason).not.toBe(reason);
      const key = `attention.${reason}` as const;
      const variants: Record<string, string | boolean>[] = [{}, { newer_open: true }, { newer_paid: true }, { newer_known: false }, { direction: 'over' }, { direction: 'under' }];
      for (const params of variants) {
        const text = translate(lang, attentionMessageKey({ key, params }), {});
        expect(text, `${reason} ${JSON.stringify(params)}`).not.toBe(attentionMessageKey({ key, params }));
      }
    }
  });

  it('every sale status has its word', () => {
    for (const status of SALE_STATUSES) expect(translate(lang, statusWordKey(status)), status).not.toMatch(internal);
  });

  it('every reason a payment matched no sale is a sentence', () => {
    for (const reason of UNMATCHED_REASONS) {
      const text = unmatchedReasonText(lang, reason);
      expect(text, reason).not.toBe(unmatchedReasonText(lang, 'not_a_reason'));
      expect(text, reason).not.toMatch(internal);
    }
  });
});
