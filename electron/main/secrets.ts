import type { SafeStorage } from 'electron';
import type { SecretCodec } from '../core/secrets.ts';

/** Secrets at rest encrypted by the OS keychain through Electron's safeStorage. */
export function safeStorageCodec(safeStorage: SafeStorage): SecretCodec {
  return {
    kind: 'safeStorage',
    encode: (value) => safeStorage.encryptString(value).toString('base64'),
    decode: (stored) => safeStorage.decryptString(Buffer.from(stored, 'base64')),
  };
}
