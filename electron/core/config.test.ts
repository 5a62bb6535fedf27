import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { ConfigError, describeConfig, knownFlags as knownFlagsOf, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('defaults to the embedded sandbox, pt-BR, store 1 checkout 1, loopback', () => {
    const c = loadConfig({ POS_DATA_DIR: '/tmp/pos-x' }, []);
    expect(c).toMatchObject({
      dataDir: '/tmp/pos-x',
      lang: 'pt-BR',
      service: { kind: 'sandbox', port: 0 },
      web: { host: '127.0.0.1', port: 5180, token: null, tls: null },
      webhook: { host: '127.0.0.1', port: 0, secret: null },
      terminal: { storeId: 1, checkoutId: 1 },
    });
  });

  it('locks the till after POS_LOCK_MINUTES idle minutes: 10 by default, 0 never, anything else refused', () => {
    expect(loadConfig({}, []).lockMinutes).toBe(10);
    expect(loadConfig({ POS_LOCK_MINUTES: '0' }, []).lockMinutes).toBe(0);
    expect(loadConfig({ POS_LOCK_MINUTES: ' 3 ' }, []).lockMinutes).toBe(3);
    for (const bad of ['-1', '2.5', 'ten', '1e3', '1441']) expect(() => loadConfig({ POS_LOCK_MINUTES: bad }, [])).toThrow(/POS_LOCK_MINUTES must be a whole number/);
  });

  it('takes flags over environment variables', () => {
    const c = loadConfig({ POS_LANG: 'es', POS_WEB_PORT: '7000' }, ['--lang', 'en', '--web-port', '0']);
    expect(c.lang).toBe('en');
    expect(c.web.port).toBe(0);
  });

  it('uses a real service only with both its address and token', () => {
    const c = loadConfig({ POS_SERVICE_URL: 'https://pay.example/', POS_SERVICE_TOKEN: 'tok-123' }, []);
    expect(c.service).toEqual({ kind: 'remote', baseUrl: 'https://pay.example', token: 'tok-123' });
    // Without a token here, the core reads the one saved in its secret store at start.
    expect(loadConfig({ POS_SERVICE_URL: 'https://pay.example' }, []).service).toEqual({ kind: 'remote', baseUrl: 'https://pay.example', token: null });
    expect(() => loadConfig({ POS_SERVICE_TOKEN: 'x' }, [])).toThrow(/POS_SERVICE_URL is not/);
    expect(() => loadConfig({ POS_SERVICE_URL: 'ftp://pay.example', POS_SERVICE_TOKEN: 'x' }, [])).toThrow(/http\(s\) address/);
  });

  it.each([
    [{ POS_LANG: 'fr' }, [], /POS_LANG must be one of pt-BR, en, es/],
    [{ POS_WEB_PORT: '70000' }, [], /POS_WEB_PORT must be a port number/],
    [{ POS_WEB_PORT: '12ab' }, [], /POS_WEB_PORT must be a port number/],
    [{ POS_STORE_ID: '0' }, [], /POS_STORE_ID must be a whole number of 1 or more/],
    [{ POS_CHECKOUT_ID: '-1' }, [], /POS_CHECKOUT_ID must be a whole number/],
    [{ POS_WEB_TOKEN: 'short' }, [], /POS_WEB_TOKEN must be 16 to 128/],
    [{ POS_WEB_HOST: 'a b' }, [], /POS_WEB_HOST must be a host name/],
    [{}, ['--no-such-flag'], /Unknown option/],
  ] as const)('refuses bad input with a sentence: %j %j', (env, argv, message) => {
    expect(() => loadConfig(env, argv)).toThrow(ConfigError);
    expect(() => loadConfig(env, argv)).toThrow(message);
  });

  it('refuses credentials in the service address and clear-text http to another machine', () => {
    expect(() => loadConfig({ POS_SERVICE_URL: 'https://user:pw@pay.example', POS_SERVICE_TOKEN: 't' }, [])).toThrow(/must not contain a user name or password/);
    expect(() => loadConfig({ POS_SERVICE_URL: 'http://pay.example', POS_SERVICE_TOKEN: 't' }, [])).toThrow(/must use https/);
    expect(loadConfig({ POS_SERVICE_URL: 'http://127.0.0.1:8787', POS_SERVICE_TOKEN: 't' }, []).service).toMatchObject({ baseUrl: 'http://127.0.0.1:8787' });
    expect(loadConfig({ POS_SERVICE_URL: 'http://localhost:8787', POS_SERVICE_TOKEN: 't' }, []).service).toMatchObject({ kind: 'remote' });
  });

  it('refuses a malformed webhook secret at start', () => {
    expect(() => loadConfig({ POS_WEBHOOK_SECRET: 'not-a-secret' }, [])).toThrow(/whsec_/);
    expect(loadConfig({ POS_WEBHOOK_SECRET: 'whsec_c2VjcmV0LWJ5dGVz' }, []).webhook.secret).toBe('whsec_c2VjcmV0LWJ5dGVz');
  });

  it('keeps only its own flags from an argv full of Electron and Chromium switches', async () => {
    const { knownFlags } = await import('./config.ts');
    const argv = ['--inspect=9229', '--lang', 'en', '--no-sandbox', '--web-port=0', '--enable-logging', '--checkout-id', '3'];
    expect(knownFlags(argv)).toEqual(['--lang', 'en', '--web-port=0', '--checkout-id', '3']);
    expect(loadConfig({}, knownFlags(argv))).toMatchObject({ lang: 'en', web: { port: 0 }, terminal: { checkoutId: 3 } });
  });

  it('takes the browser shell certificate and key together (POS_TLS_CERT, POS_TLS_KEY or their flags), as absolute paths', () => {
    expect(loadConfig({}, []).web.tls).toBeNull();
    expect(loadConfig({ POS_TLS_CERT: '/etc/pos/cert.pem', POS_TLS_KEY: '/etc/pos/key.pem' }, []).web.tls).toEqual({ certFile: '/etc/pos/cert.pem', keyFile: '/etc/pos/key.pem' });
    expect(loadConfig({ POS_TLS_CERT: '/etc/pos/cert.pem', POS_TLS_KEY: '/etc/pos/key.pem' }, ['--tls-cert', 'c.pem', '--tls-key=k.pem']).web.tls).toEqual({ certFile: resolve('c.pem'), keyFile: resolve('k.pem') });
    expect(() => loadConfig({ POS_TLS_CERT: '/etc/pos/cert.pem' }, [])).toThrow('POS_TLS_CERT is set but POS_TLS_KEY is not: give the certificate and its private key together, or neither to use a generated certificate.');
    expect(() => loadConfig({}, ['--tls-key', 'k.pem'])).toThrow(/^POS_TLS_KEY is set but POS_TLS_CERT is not/);
    expect(() => loadConfig({ POS_TLS_CERT: ' ', POS_TLS_KEY: '/k.pem' }, [])).toThrow(ConfigError);
    expect(knownFlagsOf(['--tls-cert', 'c.pem', '--no-sandbox', '--tls-key=k.pem'])).toEqual(['--tls-cert', 'c.pem', '--tls-key=k.pem']);
  });

  it('describes the certificate by its paths only', () => {
    const c = loadConfig({ POS_TLS_CERT: '/etc/pos/cert.pem', POS_TLS_KEY: '/etc/pos/key.pem' }, []);
    expect(describeConfig(c).web).toEqual({ host: '127.0.0.1', port: 5180, fixedToken: false, tls: { certFile: '/etc/pos/cert.pem', keyFile: '/etc/pos/key.pem' }, advertise: '127.0.0.1:5180', names: [] });
  });

  it('publishes the web host and port to the other cores unless told another address, and none for every interface or a free port', () => {
    expect(loadConfig({}, []).web.advertise).toBe('127.0.0.1:5180');
    expect(loadConfig({ POS_WEB_HOST: '10.0.0.11', POS_WEB_PORT: '443' }, []).web.advertise).toBe('10.0.0.11:443');
    expect(loadConfig({ POS_WEB_HOST: '::1' }, []).web.advertise).toBe('[::1]:5180');
    expect(loadConfig({ POS_WEB_HOST: 'Store-PC.local' }, []).web.advertise).toBe('store-pc.local:5180');
    expect(loadConfig({ POS_WEB_HOST: '0.0.0.0' }, []).web.advertise).toBeNull();
    expect(loadConfig({ POS_WEB_HOST: '::' }, []).web.advertise).toBeNull();
    expect(loadConfig({ POS_WEB_PORT: '0' }, []).web.advertise).toBeNull();
    expect(loadConfig({ POS_WEB_HOST: '0.0.0.0', POS_ADVERTISE_ADDRESS: '10.0.0.11:5180' }, []).web.advertise).toBe('10.0.0.11:5180');
    expect(loadConfig({ POS_ADVERTISE_ADDRESS: '10.0.0.11:5180' }, ['--advertise-address', '[2001:DB8::11]:5180']).web.advertise).toBe('[2001:db8::11]:5180');
    for (const bad of ['10.0.0.11', '10.0.0.11:0', '10.0.0.11:65536', 'core-b:http', '2001:db8::11:5180', '[10.0.0.1]:5180', 'a b:1', 'core_b:5180', 'http://core-b:5180', 'core-b:5180/x', '1.2.3:5180', '-core:5180', 'core..b:5180']) {
      expect(() => loadConfig({ POS_ADVERTISE_ADDRESS: bad }, []), bad).toThrow(`POS_ADVERTISE_ADDRESS must be a host and port the other cores can reach, such as 10.0.0.11:5180 or [2001:db8::11]:5180, not "${bad}".`);
    }
  });

  it('takes more names for the browser shell from POS_WEB_NAMES, each with an optional port, and refuses anything else with a sentence', () => {
    expect(loadConfig({}, []).web.names).toEqual([]);
    expect(loadConfig({ POS_WEB_NAMES: ' 10.0.0.12:5180, POS.example:443 ,store-b,[::1]:5181,[2001:db8::2]' }, []).web.names).toEqual(['10.0.0.12:5180', 'pos.example:443', 'store-b', '[::1]:5181', '[2001:db8::2]']);
    expect(loadConfig({}, ['--web-names', 'core-b:5180']).web.names).toEqual(['core-b:5180']);
    for (const bad of ['evil.example/x', '10.0.0.12:5180,', '*.example', 'core-b:0', 'user@core-b', '::1']) {
      expect(() => loadConfig({ POS_WEB_NAMES: bad }, []), bad).toThrow(/^POS_WEB_NAMES must be names or addresses separated by commas, each with an optional :port \(such as 10\.0\.0\.12:5180,pos\.example:443\), not ".*"\.$/);
    }
  });

  it('never describes the service token', () => {
    const c = loadConfig({ POS_SERVICE_URL: 'https://pay.example', POS_SERVICE_TOKEN: 'super-secret-token', POS_WEBHOOK_SECRET: 'whsec_YWJjZA==' }, []);
    const text = JSON.stringify(describeConfig(c));
    expect(text).not.toContain('super-secret-token');
    expect(text).not.toContain('whsec_YWJjZA==');
    expect(text).toContain('https://pay.example');
  });

  it('keeps the journal in PostgreSQL with POS_DATABASE_URL or --database-url, one host or several, never with a password in it', () => {
    expect(loadConfig({}, []).databaseUrl).toBeNull();
    expect(loadConfig({ POS_DATABASE_URL: 'postgres://cashier@db.example:5432/pix' }, []).databaseUrl).toBe('postgres://cashier@db.example:5432/pix');
    const multi = 'postgresql://cashier@db1:5432,db2:5432/pix?target_session_attrs=read-write';
    expect(loadConfig({ POS_DATABASE_URL: 'postgres://x@y/z' }, ['--database-url', multi]).databaseUrl).toBe(multi);
    expect(() => loadConfig({ POS_DATABASE_URL: 'postgres://cashier:hunter2@db/pix' }, [])).toThrow(new ConfigError('POS_DATABASE_URL must not contain a password: give it in PGPASSWORD.'));
    expect(() => loadConfig({ POS_DATABASE_URL: 'postgres://cashier@db/pix?password=hunter2' }, [])).toThrow(/must not contain a password/);
    expect(() => loadConfig({ POS_DATABASE_URL: 'mysql://db/pix' }, [])).toThrow(/must be a postgres:\/\/ address/);
    expect(describeConfig(loadConfig({ POS_DATABASE_URL: 'postgres://cashier@db/pix' }, [])).database).toBe('postgres://cashier@db/pix');
  });
});
