import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { CoreError } from '../errors.ts';
import { memoryLogger } from '../log.ts';
import { createServiceClient, newIdempotencyKey } from './client.ts';
import type { ServiceClient, ServiceClientOptions } from './client.ts';
import { ServiceError } from './errors.ts';

const clock = new ManualClock();
const TOKEN = 'sandbox-manager-token';
const clients: ServiceClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function make(options: Partial<ServiceClientOptions> = {}): ServiceClient {
  // Port 9 (discard) on loopback: a call that reached the network would fail as a ServiceError.
  const client = createServiceClient({ baseUrl: 'http://127.0.0.1:9', token: TOKEN, clock, log: memoryLogger(clock), ...options });
  clients.push(client);
  return client;
}

async function refusedBeforeSending(promise: Promise<unknown>): Promise<CoreError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(CoreError);
    expect(err).not.toBeInstanceOf(ServiceError);
    expect((err as CoreError).code).toBe('invalid_argument');
    return err as CoreError;
  }
  throw new Error('expected a refusal');
}

describe('createServiceClient options', () => {
  it.each([
    [{ baseUrl: 'not a url' }, 'not a valid URL'],
    [{ baseUrl: 'ftp://127.0.0.1' }, 'http:// or https://'],
    [{ token: '' }, 'token'],
    [{ token: 'abc def' }, 'token'],
    [{ token: 'abc\r\nX-Evil: 1' }, 'token'],
    [{ connections: 0 }, 'connection cap'],
    [{ timeouts: { headersMs: -1 } }, 'headersMs'],
    [{ retry: { maxAttempts: 0 } }, 'maxAttempts'],
  ] as [Partial<ServiceClientOptions>, string][])('refuses %o', (options, says) => {
    let caught: unknown;
    try {
      make(options);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CoreError);
    expect((caught as CoreError).code).toBe('invalid_argument');
    expect((caught as CoreError).message).toContain(says);
    // The message never repeats the token it refuses.
    if (options.token !== undefined && options.token !== '') expect((caught as CoreError).message).not.toContain(options.token);
  });

  it('keeps the defaults for options given as undefined', () => {
    expect(() => make({ timeouts: { headersMs: undefined }, retry: { maxAttempts: undefined } })).not.toThrow();
  });
});

describe('bad input is refused before anything is sent', () => {
  it('an empty pix_id', async () => {
    const err = await refusedBeforeSending(make().txStatus(''));
    expect(err.message).toContain('pix_id');
  });

  it('a store id that is not a positive whole number', async () => {
    await refusedBeforeSending(make().listCheckouts(0));
    await refusedBeforeSending(make().patchStore(1.5, { store_name: 'x' }));
  });

  it('an idempotency key on a route the service does not de-duplicate', async () => {
    const err = await refusedBeforeSending(make().call('stores.create', { store_name: 'Loja' }, { idempotencyKey: newIdempotencyKey() }));
    expect(err.message).toContain('idempotency key');
  });

  it('a deadline that is not a positive number', async () => {
    await refusedBeforeSending(make().listWallets({ deadlineMs: 0 }));
  });

  it.each(['', 'x'.repeat(256), 'has space', 'ção'])('an idempotency key like %o', async (key) => {
    await refusedBeforeSending(make().createDynamicPix({ amount_cents: 100 }, { idempotencyKey: key }));
  });
});

describe('newIdempotencyKey', () => {
  it('is unique and a valid header value within 255 characters (contract 2)', () => {
    const keys = new Set(Array.from({ length: 100 }, () => newIdempotencyKey()));
    expect(keys.size).toBe(100);
    for (const k of keys) expect(k).toMatch(/^[\x21-\x7e]{1,255}$/);
  });
});
