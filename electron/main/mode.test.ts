import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideBoot, isFingerprint, isStoreOrigin, MODE_FILE, npmStartElectronArgs, parseMode, parseStoreAddress, readMode, relaunchArgs, STORE_FLAG, writeMode } from './mode.ts';

const FP = Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, '0').toUpperCase()).join(':');

describe('parseStoreAddress', () => {
  it.each([
    ['https://192.168.0.10:5180', 'https://192.168.0.10:5180'],
    ['192.168.0.10:5180', 'https://192.168.0.10:5180'],
    ['  https://Store.LAN:5180/  ', 'https://store.lan:5180'],
    ['https://[fe80::1]:5180', 'https://[fe80::1]:5180'],
    ['https://store.lan:443', 'https://store.lan'],
  ])('%s -> %s', (raw, origin) => {
    expect(parseStoreAddress(raw)).toEqual({ ok: true, origin });
  });

  it.each([
    ['', 'not_an_address'],
    ['   ', 'not_an_address'],
    [42, 'not_an_address'],
    [null, 'not_an_address'],
    ['https://', 'not_an_address'],
    ['https://exa mple:5180', 'not_an_address'],
    ['http://192.168.0.10:5180', 'not_https'],
    ['ws://192.168.0.10:5180', 'not_https'],
    ['file:///etc/passwd', 'not_https'],
    ['javascript:alert(1)//x:1', 'not_an_address'],
    ['https://192.168.0.10', 'no_port'],
    ['store.lan', 'no_port'],
    ['https://[fe80::1]', 'no_port'],
    ['https://user:pw@store.lan:5180', 'has_credentials'],
    ['https://user@store.lan:5180', 'has_credentials'],
    ['https://store.lan:5180/evil', 'has_path'],
    ['https://store.lan:5180/?x=1', 'has_path'],
    ['https://store.lan:5180/#token=1', 'has_path'],
    ['https://store.lan:5180?', 'has_path'],
    ['https://' + 'a'.repeat(300) + ':1', 'not_an_address'],
  ])('%s is refused: %s', (raw, problem) => {
    expect(parseStoreAddress(raw)).toEqual({ ok: false, problem });
  });
});

describe('isFingerprint / isStoreOrigin', () => {
  it('accepts the SHA-256 colon hex form only, upper case', () => {
    expect(isFingerprint(FP)).toBe(true);
    expect(isFingerprint(FP.toLowerCase())).toBe(false);
    expect(isFingerprint(FP.replaceAll(':', ''))).toBe(false);
    expect(isFingerprint(FP.slice(3))).toBe(false);
    expect(isFingerprint(`${FP}:00`)).toBe(false);
    expect(isFingerprint(`${FP}\n`)).toBe(false);
    expect(isFingerprint(undefined)).toBe(false);
  });

  it('accepts only an https origin in its canonical form', () => {
    expect(isStoreOrigin('https://192.168.0.10:5180')).toBe(true);
    for (const bad of ['http://192.168.0.10:5180', 'https://192.168.0.10:5180/', 'https://h:5180/x', 'https://u@h:5180', 'https://H:5180', 'nope', 7]) expect(isStoreOrigin(bad)).toBe(false);
  });
});

describe('parseMode', () => {
  it('reads both modes', () => {
    expect(parseMode({ mode: 'store' })).toEqual({ mode: 'store' });
    expect(parseMode({ mode: 'connect' })).toEqual({ mode: 'connect' });
    expect(parseMode({ mode: 'connect', origin: 'https://10.0.0.2:5180', fingerprint: FP })).toEqual({ mode: 'connect', origin: 'https://10.0.0.2:5180', fingerprint: FP });
  });

  it.each([
    [null],
    [[]],
    ['store'],
    [{}],
    [{ mode: 'till' }],
    [{ mode: 'store', origin: 'https://10.0.0.2:5180' }],
    [{ mode: 'connect', origin: 'https://10.0.0.2:5180' }],
    [{ mode: 'connect', fingerprint: FP }],
    [{ mode: 'connect', origin: 'http://10.0.0.2:5180', fingerprint: FP }],
    [{ mode: 'connect', origin: 'https://10.0.0.2:5180/path', fingerprint: FP }],
    [{ mode: 'connect', origin: 'https://10.0.0.2:5180', fingerprint: 'sha256/abc' }],
    [{ mode: 'connect', origin: 'https://10.0.0.2:5180', fingerprint: FP, extra: 1 }],
  ])('refuses %j', (raw) => {
    expect(parseMode(raw)).toBeNull();
  });
});

describe('mode.json', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pos-mode-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is missing before the first choice', async () => {
    expect(await readMode(dir)).toEqual({ state: 'missing' });
    expect(await readMode(join(dir, 'not-yet'))).toEqual({ state: 'missing' });
  });

  it('keeps what was written, readable by this user only', async () => {
    const connect = { mode: 'connect', origin: 'https://10.0.0.2:5180', fingerprint: FP } as const;
    await writeMode(join(dir, 'data'), connect);
    expect(await readMode(join(dir, 'data'))).toEqual({ state: 'saved', mode: connect });
    if (process.platform !== 'win32') expect((await stat(join(dir, 'data', MODE_FILE))).mode & 0o777).toBe(0o600);
    await writeMode(join(dir, 'data'), { mode: 'store' });
    expect(await readMode(join(dir, 'data'))).toEqual({ state: 'saved', mode: { mode: 'store' } });
    expect(JSON.parse(await readFile(join(dir, 'data', MODE_FILE), 'utf8'))).toEqual({ mode: 'store' });
  });

  it('refuses to write an invalid mode', async () => {
    await expect(writeMode(dir, { mode: 'connect', origin: 'http://10.0.0.2:5180', fingerprint: FP })).rejects.toThrow(/invalid/);
    expect(await readMode(dir)).toEqual({ state: 'missing' });
  });

  it.each([['not json'], ['{"mode":"connect","origin":"http://10.0.0.2:5180","fingerprint":"x"}'], ['[]']])('reports a file that is not a mode: %s', async (text) => {
    await writeFile(join(dir, MODE_FILE), text);
    expect(await readMode(dir)).toMatchObject({ state: 'invalid', reason: expect.stringContaining(MODE_FILE) });
  });
});

describe('decideBoot', () => {
  const store = { state: 'saved', mode: { mode: 'store' } } as const;
  const connect = { state: 'saved', mode: { mode: 'connect', origin: 'https://10.0.0.2:5180', fingerprint: FP } } as const;

  it('asks at the first start, and when mode.json is not a mode', () => {
    expect(decideBoot([], { state: 'missing' })).toEqual({ run: 'ask', reason: null });
    expect(decideBoot(['--lang', 'en'], { state: 'invalid', reason: 'broken' })).toEqual({ run: 'ask', reason: 'broken' });
  });

  it('runs the saved mode', () => {
    expect(decideBoot([], store)).toEqual({ run: 'store' });
    expect(decideBoot([], connect)).toEqual({ run: 'connect', pin: { origin: 'https://10.0.0.2:5180', fingerprint: FP } });
    expect(decideBoot([], { state: 'saved', mode: { mode: 'connect' } })).toEqual({ run: 'connect', pin: null });
  });

  it(`runs the store with ${STORE_FLAG} (npm start) and never asks, whatever is saved`, () => {
    for (const saved of [{ state: 'missing' } as const, { state: 'invalid', reason: 'x' } as const, store, connect]) {
      expect(decideBoot(['--lang=en', STORE_FLAG], saved)).toEqual({ run: 'store' });
    }
  });

  it('npm start launches Electron with the flag, so the boot it decides is the store', () => {
    const args = npmStartElectronArgs('/app', ['--lang', 'en']);
    expect(args).toEqual(['/app', STORE_FLAG, '--lang', 'en']);
    expect(decideBoot(args.slice(1), { state: 'missing' })).toEqual({ run: 'store' });
  });

  it('refuses any other --mode', () => {
    expect(() => decideBoot(['--mode=connect'], store)).toThrow(/only --mode=store/);
    expect(() => decideBoot(['--mode', 'store'], store)).toThrow(/only --mode=store/);
    expect(() => decideBoot([STORE_FLAG, '--mode=x'], store)).toThrow(/--mode=x/);
  });

  it('relaunches with the same arguments, without the flag that would override the new mode', () => {
    expect(relaunchArgs(['/usr/bin/electron', '/app', STORE_FLAG, '--lang=en'])).toEqual(['/app', '--lang=en']);
  });
});
