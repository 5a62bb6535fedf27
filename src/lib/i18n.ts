import type { Lang } from '../../electron/core/contract.ts';
import { en, type Dictionary, type TextKey } from './texts/en.ts';
import { es } from './texts/es.ts';
import { ptBR } from './texts/pt-BR.ts';
import { formatCount, ruleAmounts, ruleNumbers } from './format.ts';

/**
 * UI texts in the three languages. English keys are the words tests rely on with
 * POS_LANG=en; pt-BR is the default. Money and numbers are formatted in format.ts, dates
 * here, both with Intl for the language, never by hand.
 */
export type { TextKey };
export type TextParams = Readonly<Record<string, string | number>>;

const dictionaries: Record<Lang, Dictionary> = { 'pt-BR': ptBR, en, es };

/**
 * Parameters that are always counts ("{count} of {max} characters", "{days} days left"): given
 * as a number, each is written the language's way ("4.000" in pt-BR), so no screen shows a raw
 * "4000". Other numbers (ids, pay-out numbers) are names, and stay as given.
 */
const COUNT_PARAMS: ReadonlySet<string> = new Set(['count', 'max', 'days']);

export function translate(lang: Lang, key: TextKey, params?: TextParams): string {
  const text = dictionaries[lang][key];
  if (!text.includes('{')) return text;
  // The rule amounts ({max_sale}…) and limits ({claim_details_max}…) come formatted for the
  // language, like any amount given.
  const all: TextParams = { ...ruleAmounts(lang), ...ruleNumbers(lang), ...params };
  return text.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = all[name];
    if (value === undefined) return `{${name}}`;
    return typeof value === 'number' && COUNT_PARAMS.has(name) && Number.isFinite(value) ? formatCount(lang, value) : String(value);
  });
}

/** Every key of every language, for the completeness test. */
export function dictionary(lang: Lang): Readonly<Dictionary> {
  return dictionaries[lang];
}

function toDate(at: string | number): Date {
  return new Date(at);
}

export function formatDateTime(lang: Lang, at: string | number): string {
  return new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'medium' }).format(toDate(at));
}

export function formatTime(lang: Lang, at: string | number): string {
  return new Intl.DateTimeFormat(lang, { timeStyle: 'medium' }).format(toDate(at));
}
