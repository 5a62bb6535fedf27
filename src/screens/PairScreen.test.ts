import { createElement } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LANGS, type Lang } from '../../electron/core/contract.ts';
import { translate } from '../lib/i18n.ts';
import { LANG_KEY } from '../lib/langPreference.ts';

/**
 * Issue 25, point 5: a browser cannot see the certificate of the page it shows, so a
 * fingerprint the same server sends proves nothing. The pair screen, served over https,
 * presents none as a check: it says how to compare the certificate in the browser's own
 * viewer with the store computer's Devices screen, and what no warning at all means.
 */
const at = (protocol: string) => {
  (globalThis as unknown as { location: unknown }).location = { protocol };
};

afterEach(() => {
  delete (globalThis as unknown as { location?: unknown }).location;
  vi.unstubAllGlobals();
});

/**
 * The screen as a device that chose `lang` first draws it (server rendering draws a store's
 * state as it starts, so the device's choice is in its storage before the screen loads).
 */
const render = async (lang: Lang) => {
  vi.stubGlobal('localStorage', { getItem: (key: string) => (key === LANG_KEY ? lang : null) });
  vi.resetModules();
  const { renderToStaticMarkup } = await import('react-dom/server');
  const { PairScreen } = await import('./PairScreen.tsx');
  return renderToStaticMarkup(createElement(PairScreen));
};

/** The words each language's advice must hold: the browser's own viewer, the fingerprint's name, where to compare. */
const WORDS: Record<Lang, RegExp[]> = {
  en: [/padlock/, /Certificate/, /SHA-256/, /Devices screen/, /certificate authority/],
  'pt-BR': [/cadeado/, /Certificado/, /SHA-256/, /tela Aparelhos/, /autoridade certificadora/],
  es: [/candado/, /Certificado/, /SHA-256/, /pantalla Dispositivos/, /autoridad de certificación/],
};

describe('PairScreen: pairing says only what it can prove', () => {
  it.each(LANGS)('over https (%s) tells how to compare the certificate in the browser’s own viewer, and shows no fingerprint to match', async (lang) => {
    at('https:');
    const html = await render(lang);
    for (const word of WORDS[lang]) expect(html).toMatch(word);
    expect(html).toContain('data-testid="pair-certificate"');
    expect(html).not.toContain('data-testid="pair-fingerprint"');
    expect(html).not.toMatch(/([0-9A-F]{2}:){31}[0-9A-F]{2}/);
    // Today's words, which asked a person to trust what the page itself showed.
    expect(html).not.toContain(['Check that this fingerprint matches', 'Confira se esta impressão digital', 'Compruebe que esta huella'][LANGS.indexOf(lang)]);
  });

  it('over plain http on the store computer’s loopback says nothing about certificates (there is none)', async () => {
    at('http:');
    const html = await render('en');
    expect(html).toContain(translate('en', 'pair.heading'));
    expect(html).not.toContain('data-testid="pair-certificate"');
    expect(html).not.toMatch(/padlock/);
  });
});
