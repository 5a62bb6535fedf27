import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSecretStore, SecretFileError, type SecretCodec } from './secrets.ts';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pos-secrets-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A reversible codec standing in for safeStorage, whose OS keychain is not here. */
const xor: SecretCodec = {
  kind: 'test-cipher',
  encode: (v) => Buffer.from([...Buffer.from(v)].map((b) => b ^ 0x5a)).toString('base64'),
  decode: (s) => Buffer.from([...Buffer.from(s, 'base64')].map((b) => b ^ 0x5a)).toString(),
};

describe('FileSecretStore', () => {
  it('keeps secrets in a file only this user can read', async () => {
    const path = join(dir, 'secrets.json');
    const store = new FileSecretStore(path);
    expect(await store.get('service.token')).toBeNull();
    await store.set('service.token', 'tok-1');
    await store.set('webhook.secret', 'whsec_x');
    expect(await store.get('service.token')).toBe('tok-1');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await store.delete('service.token');
    expect(await new FileSecretStore(path).get('service.token')).toBeNull();
    expect(await new FileSecretStore(path).get('webhook.secret')).toBe('whsec_x');
  });

  it('stores only the codec output: with an encrypting codec the secret is not in the file', async () => {
    const path = join(dir, 'secrets.json');
    await new FileSecretStore(path, xor).set('service.token', 'super-secret-token');
    expect(await readFile(path, 'utf8')).not.toContain('super-secret-token');
    expect(await new FileSecretStore(path, xor).get('service.token')).toBe('super-secret-token');
  });

  it('refuses a secrets file others can read', async () => {
    const path = join(dir, 'secrets.json');
    await writeFile(path, JSON.stringify({ 'service.token': 'x' }));
    await chmod(path, 0o644);
    await expect(new FileSecretStore(path).get('service.token')).rejects.toThrow(SecretFileError);
  });

  it('serializes concurrent writes without losing one', async () => {
    const store = new FileSecretStore(join(dir, 'secrets.json'));
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.set(`k${i}`, `v${i}`)));
    for (let i = 0; i < 20; i++) expect(await store.get(`k${i}`)).toBe(`v${i}`);
  });
});
