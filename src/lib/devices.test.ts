import { describe, expect, it } from 'vitest';
import { credentialProtocols } from './bridge.ts';
import { formatPairingCode } from './devices.ts';

describe('formatPairingCode', () => {
  it('groups the 8 digits 4+4, as read aloud', () => {
    expect(formatPairingCode('12345678')).toBe('1234 5678');
    expect(formatPairingCode('0001')).toBe('0001');
  });
});

describe('credentialProtocols', () => {
  it('offers the store token, a device credential, or nothing (an unpaired device)', () => {
    expect(credentialProtocols({ kind: 'token', value: 'abc' }, null)).toEqual(['pos.bridge.v1', 'pos.token.abc']);
    expect(credentialProtocols({ kind: 'device', value: 'cred' }, 'k')).toEqual(['pos.bridge.v1', 'pos.device.cred', 'pos.resume.k']);
    expect(credentialProtocols(null, null)).toEqual(['pos.bridge.v1']);
  });
});
