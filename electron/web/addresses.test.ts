import { describe, expect, it } from 'vitest';
import { declaredNames, isLoopbackHost, isWildcardHost, shellAddresses, shellNames, type NetworkNames } from './addresses.ts';

const store: NetworkNames = { addresses: ['127.0.0.1', '::1', '192.168.1.5', 'fd00::2'], hostname: 'Caixa-1' };

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.0.0.2', '127.255.255.254', '127.1', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1'])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(['0.0.0.0', '::', '192.168.1.5', '10.0.0.1', '128.0.0.1', '127.0.0.1.evil.example', 'localhost.evil.example', 'evil-localhost', '::ffff:127.0.0.1', '', ' ', 'a b', '[127.0.0.1]x'])('%j is not loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });

  it('knows the every-interface addresses', () => {
    expect(['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0'].every(isWildcardHost)).toBe(true);
    expect(['127.0.0.1', '192.168.1.5', 'localhost', ''].some(isWildcardHost)).toBe(false);
  });
});

describe('shellNames / shellAddresses', () => {
  it('bound to every interface: each address, the computer name with and without .local, and the loopback names', () => {
    expect(shellNames('0.0.0.0', store)).toEqual(['127.0.0.1', '::1', '192.168.1.5', 'fd00::2', 'caixa-1', 'caixa-1.local', 'localhost']);
    expect(shellNames('::', { addresses: ['10.0.0.7'], hostname: 'till.local' })).toEqual(['10.0.0.7', 'till', 'till.local', 'localhost', '127.0.0.1']);
    const a = shellAddresses('0.0.0.0', 5180, true, store);
    // The address to print is one another computer can open.
    expect(a.origin).toBe('https://192.168.1.5:5180');
    expect(a.hosts).toEqual(['127.0.0.1:5180', '[::1]:5180', '192.168.1.5:5180', '[fd00::2]:5180', 'caixa-1:5180', 'caixa-1.local:5180', 'localhost:5180']);
    expect(a.origins).toContain('https://caixa-1.local:5180');
    expect(a.origins.every((o) => o.startsWith('https://'))).toBe(true);
    expect(a.entrances).toEqual(['https://192.168.1.5:5180', 'https://[fd00::2]:5180', 'https://caixa-1:5180', 'https://caixa-1.local:5180']);
  });

  it('bound to one address: that address only, with the loopback names only when it is loopback', () => {
    expect(shellAddresses('192.168.1.5', 8443, true, store)).toEqual({
      origin: 'https://192.168.1.5:8443',
      hosts: ['192.168.1.5:8443'],
      origins: ['https://192.168.1.5:8443'],
      entrances: ['https://192.168.1.5:8443'],
    });
    expect(shellAddresses('127.0.0.2', 4000, true, store).hosts).toEqual(['127.0.0.2:4000', 'localhost:4000', '127.0.0.1:4000']);
    expect(shellAddresses('127.0.0.1', 5180, false, store)).toEqual({
      origin: 'http://127.0.0.1:5180',
      hosts: ['127.0.0.1:5180', 'localhost:5180'],
      origins: ['http://127.0.0.1:5180', 'http://localhost:5180'],
      entrances: ['http://127.0.0.1:5180'],
    });
    expect(shellAddresses('::1', 5180, false, store).origin).toBe('http://[::1]:5180');
  });

  it('on the default port also accepts the name without a port, as browsers send it', () => {
    const a = shellAddresses('192.168.1.5', 443, true, store);
    expect(a.origin).toBe('https://192.168.1.5');
    expect(a.entrances).toEqual(['https://192.168.1.5']);
    expect(a.hosts).toEqual(['192.168.1.5:443', '192.168.1.5']);
    expect(a.origins).toContain('https://192.168.1.5');
  });

  it('leaves out computer names no certificate or Host header can carry', () => {
    expect(shellNames('0.0.0.0', { addresses: ['fe80::1%eth0'], hostname: 'caixa_1 (loja)' })).toEqual(['localhost', '127.0.0.1']);
  });

  it('also answers to the names the merchant declares (the other cores, a balancer), each at its own port, and to no other', () => {
    const a = shellAddresses('10.0.0.11', 5180, true, store, ['10.0.0.11:5180', '10.0.0.12:5180', 'POS.example:443', 'core-c', '[FD00::3]:5180', 'evil.example/x', '*.example']);
    expect(a.hosts).toEqual(['10.0.0.11:5180', '10.0.0.12:5180', 'pos.example:443', 'pos.example', 'core-c:5180', '[fd00::3]:5180']);
    expect(a.origins).toEqual(a.hosts.map((h) => `https://${h}`));
    // Pairing still shows the address this core is bound to.
    expect(a.origin).toBe('https://10.0.0.11:5180');
    expect(a.entrances).toEqual(['https://10.0.0.11:5180']);
    expect(declaredNames(['10.0.0.12:5180', 'POS.example:443', 'core-c', '[FD00::3]:5180', 'pos.example', 'evil.example/x'])).toEqual(['10.0.0.12', 'pos.example', 'core-c', 'fd00::3']);
  });
});
