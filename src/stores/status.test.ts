import { describe, expect, it } from 'vitest';
import { initialLang } from './status.ts';

describe('initialLang', () => {
  it.each([
    [['en-US', 'pt-BR'], 'en'],
    [['pt-PT'], 'pt-BR'],
    [['es-AR'], 'es'],
    [['fr-FR', 'de'], 'pt-BR'],
    [[], 'pt-BR'],
  ])('%j -> %s', (preferred, lang) => {
    expect(initialLang(preferred)).toBe(lang);
  });
});
