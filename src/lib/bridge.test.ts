import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ServerMessage } from '../../electron/shared/ws-protocol.ts';
import { socketTransport, type DeviceCredentialStore } from './bridge.ts';
import { memoryStorage } from './fixtures/storage.ts';

/**
 * Issue 23: the page keeps its sign-in's resume secret in memory only. It offers it again when
 * its connection comes back (to the same core or to the one that took over), and a reload,
 * which starts a new page, has none to offer: it asks for the PIN again.
 */

/** The browser's WebSocket as the transport uses it: each one opened is kept for the test to drive. */
class FakeSocket {
  static readonly OPEN = 1;
  static opened: FakeSocket[] = [];
  readonly OPEN = 1;
  readyState = 0;
  readonly sent: string[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  readonly url: string;
  readonly protocols: string[];
  constructor(url: string, protocols: string[]) {
    this.url = url;
    this.protocols = protocols;
    FakeSocket.opened.push(this);
  }
  send(text: string): void {
    this.sent.push(text);
  }
  close(): void {
    this.drop();
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.();
  }
  say(msg: ServerMessage): void {
    this.onmessage?.({ data: JSON.stringify(msg) });
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.({ code: 1006 });
  }
}

const CREDENTIAL = 'c'.repeat(43);
const SECRET = 's'.repeat(43);

beforeEach(() => {
  vi.useFakeTimers();
  FakeSocket.opened = [];
  vi.stubGlobal('WebSocket', FakeSocket);
  vi.stubGlobal('location', { protocol: 'https:', host: 'store.local:8443' });
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** A paired till's page: its credential in the device store, the session storage of its tab. */
const page = (session: Storage, devices: DeviceCredentialStore) => socketTransport(null, session, devices);

function deviceStore(): DeviceCredentialStore & { saved: string[] } {
  const saved: string[] = [];
  return { saved, load: () => Promise.resolve(CREDENTIAL), save: (c) => (saved.push(c), Promise.resolve()), forget: () => Promise.resolve() };
}

const last = () => FakeSocket.opened.at(-1) as FakeSocket;
const offered = (s: FakeSocket) => s.protocols.filter((p) => p.startsWith('pos.resume.'));

async function connected(): Promise<FakeSocket> {
  await vi.advanceTimersByTimeAsync(0);
  const socket = last();
  socket.open();
  socket.say({ type: 'resume', key: '' });
  socket.say({ type: 'device', connection: 'device', device: { id: 'd1', kind: 'till', name: 'Till 2', storeId: 1, checkoutId: 2 } });
  return socket;
}

describe('the resume secret of a page’s sign-in', () => {
  it('is offered again when the connection comes back, and kept in no storage', async () => {
    const session = memoryStorage();
    const devices = deviceStore();
    const transport = page(session, devices);
    const first = await connected();
    expect(offered(first)).toEqual([]);
    const signedIn = transport.invoke('auth.signIn', { name: 'Caio', pin: '2468' });
    const call = JSON.parse(first.sent.at(-1) as string) as { id: number };
    // The server gives the secret with the sign-in's answer.
    first.say({ type: 'resume', key: SECRET });
    first.say({ type: 'reply', id: call.id, envelope: { ok: true, result: {} } });
    await signedIn;

    // The core restarts (or another takes over): the page reconnects with its secret.
    first.drop();
    await vi.advanceTimersByTimeAsync(250);
    const back = last();
    expect(back).not.toBe(first);
    expect(offered(back)).toEqual([`pos.resume.${SECRET}`]);
    back.open();
    back.say({ type: 'resume', key: SECRET });
    back.drop();
    await vi.advanceTimersByTimeAsync(500);
    expect(offered(last())).toEqual([`pos.resume.${SECRET}`]);

    expect(session.written.join('\n')).not.toContain(SECRET);
    expect(devices.saved.join('\n')).not.toContain(SECRET);
  });

  it('is forgotten once the server says the connection is not signed in (an ended or wrong secret)', async () => {
    page(memoryStorage(), deviceStore());
    const first = await connected();
    first.say({ type: 'resume', key: SECRET });
    first.drop();
    await vi.advanceTimersByTimeAsync(250);
    const back = last();
    back.open();
    back.say({ type: 'resume', key: '' });
    back.drop();
    await vi.advanceTimersByTimeAsync(500);
    expect(offered(last())).toEqual([]);
  });

  it('is gone after a reload: the new page offers none and signs in with the PIN', async () => {
    const session = memoryStorage();
    const devices = deviceStore();
    page(session, devices);
    const first = await connected();
    first.say({ type: 'resume', key: SECRET });
    // A reload is a new page over the same tab's storage and the same device store.
    page(session, devices);
    await vi.advanceTimersByTimeAsync(0);
    const reloaded = last();
    expect(reloaded).not.toBe(first);
    expect(reloaded.protocols).toContain(`pos.device.${CREDENTIAL}`);
    expect(offered(reloaded)).toEqual([]);
  });
});
