import type { Lang } from '../../electron/core/contract.ts';
import { en, type Dictionary, type TextKey } from './texts/en.ts';
import { es } from './texts/es.ts';
import { ptBR } from './texts/pt-BR.ts';

/**
 * UI texts in the three languages. English keys are the words tests rely on with
 * POS_LANG=en; pt-BR is the default. Money and dates are formatted with Intl for the
 * language, never by hand.
 */
export type { TextKey };
export type TextParams = Readonly<Record<string, string | number>>;

const dictionaries: Record<Lang, Dictionary> = { 'pt-BR': ptBR, en, es };

export function translate(lang: Lang, key: TextKey, params?: TextParams): string {
  const text = dictionaries[lang][key];
  return params ? text.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? `{${name}}`)) : text;
}

/** Every key of every language, for the completeness test. */
export function dictionary(lang: Lang): Readonly<Dictionary> {
  return dictionaries[lang];
}

const moneyFormats = new Map<Lang, Intl.NumberFormat>();

/** Integer cents as reais in the language's way: "R$ 10,00" (pt-BR), "R$10.00" (en). */
export function formatMoney(lang: Lang, cents: number): string {
  let format = moneyFormats.get(lang);
  if (!format) moneyFormats.set(lang, (format = new Intl.NumberFormat(lang, { style: 'currency', currency: 'BRL', currencyDisplay: 'narrowSymbol' })));
  // narrowSymbol: "R$" in every language (es would otherwise say "BRL"). Cents are integers:
  // dividing once for display is exact for two decimal places.
  return format.format(cents / 100);
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

/** A number in the language's way (counts in totals). */
export function formatCount(lang: Lang, n: number): string {
  return new Intl.NumberFormat(lang).format(n);
}
