/** The terminal's languages; pt-BR is the default. */
export const LANGS = ['pt-BR', 'en', 'es'] as const;
export type Lang = (typeof LANGS)[number];

export function isLang(v: unknown): v is Lang {
  return typeof v === 'string' && (LANGS as readonly string[]).includes(v);
}
