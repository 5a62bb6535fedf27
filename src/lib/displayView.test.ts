import { describe, expect, it } from 'vitest';
import type { DisplayView } from '../../electron/core/contract.ts';
import { acceptDisplayView, copyPixCode, displayResyncMs, rememberAmount, screenAmount } from './displayView.ts';

const view = (now: number, screen: DisplayView['screen'], checkout = 2): DisplayView => ({ store_id: 1, checkout_id: checkout, now, lang: 'en', screen, hold: false });
const qr = (id: string, cents: number): DisplayView['screen'] => ({ kind: 'qr', sale_id: id, emv: '000201', amount_cents: cents, expires_at: 1_000, printed: true });

describe('acceptDisplayView', () => {
  it('takes the first view, a newer one, and never an older one that crossed it', () => {
    expect(acceptDisplayView(null, view(5, { kind: 'idle' }))).toBe(true);
    expect(acceptDisplayView(view(5, { kind: 'idle' }), view(6, qr('s1', 100)))).toBe(true);
    expect(acceptDisplayView(view(6, qr('s1', 100)), view(5, { kind: 'idle' }), 100)).toBe(false);
  });
  it('lets an older-looking view through after a while (a core clock set back must not freeze the screen)', () => {
    expect(acceptDisplayView(view(6, qr('s1', 100)), view(5, { kind: 'idle' }), 60_000)).toBe(true);
  });
});

describe('the amount a display shows with a settled sale', () => {
  it('is the one its QR showed', () => {
    let amounts = rememberAmount({}, view(1, qr('s1', 1250)));
    amounts = rememberAmount(amounts, view(2, { kind: 'settled', sale_id: 's1', status: 'paid' }));
    expect(screenAmount(view(2, { kind: 'settled', sale_id: 's1', status: 'paid' }), amounts)).toBe(1250);
    expect(screenAmount(view(2, { kind: 'settled', sale_id: 'never-seen', status: 'paid' }), amounts)).toBeNull();
    expect(screenAmount(view(2, { kind: 'idle' }), amounts)).toBeNull();
  });
  it('keeps only the newest sales', () => {
    let amounts: Record<string, number> = {};
    for (let i = 0; i < 30; i++) amounts = rememberAmount(amounts, view(i, qr(`s${i}`, i)), 5);
    expect(Object.keys(amounts)).toEqual(['s25', 's26', 's27', 's28', 's29']);
  });
  it('reads again while a QR is up, not while idle', () => {
    expect(displayResyncMs(view(1, qr('s1', 1)))).toBe(2_000);
    expect(displayResyncMs(view(1, { kind: 'idle' }))).toBeNull();
    expect(displayResyncMs(view(1, { kind: 'expiring', sale_id: 's1', amount_cents: 1250, expires_at: 9 }))).toBe(10_000);
  });
});

describe('copyPixCode', () => {
  const EMV = '00020101021226860014br.gov.bcb.pix2564pix.example/qr/v2/cobv/9d36b84f-c70b-478f-b95c-12729b90ca255204000053039865802BR5905Loja 6009SAO PAULO62070503***63041D3D';

  it('puts the whole code on the clipboard, as given', async () => {
    const written: string[] = [];
    expect(await copyPixCode(EMV, { writeText: (text: string) => Promise.resolve(void written.push(text)) })).toBe('copied');
    expect(written).toEqual([EMV]);
  });

  it.each([
    ['no clipboard (an insecure page)', undefined],
    ['a null clipboard', null],
    ['a clipboard without writeText', {} as Pick<Clipboard, 'writeText'>],
    ['a refusal (no permission)', { writeText: () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError')) }],
    ['a throw before any promise', { writeText: (): Promise<void> => { throw new TypeError('Illegal invocation'); } }],
  ])('says failed on %s, and does not throw', async (_name, clipboard) => {
    expect(await copyPixCode(EMV, clipboard)).toBe('failed');
  });

  it('copies nothing for an empty code', async () => {
    const written: string[] = [];
    expect(await copyPixCode('', { writeText: (text: string) => Promise.resolve(void written.push(text)) })).toBe('failed');
    expect(written).toEqual([]);
  });
});
