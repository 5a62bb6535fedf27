/**
 * The 64 tills of `npm run bench:tills` (tills.ts), in a worker thread of their own: in a
 * store they are tablets and computers of their own, so their work (framing and parsing
 * every push, the payer's HTTP calls) does not queue on the core's event loop; they still
 * share this machine's two cores, and this process's CPU figure still counts them.
 *
 * Each till is paired the way a tablet is (`pairing.pair` on an unpaired connection with a
 * manager's pairing code, then a connection with its device credential), signs a cashier
 * in, and then loops: `sale.charge`, the payer pays the checkout's printed QR through the
 * sandbox's control API, and the till waits for its own `checkout.changed` push showing that
 * sale paid. The thread says `ready` once every till is paired; then, for each round, it
 * starts on `go` and posts the round's figures when its sales or time bound is reached.
 */
import { parentPort, Worker, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import { serviceControl } from '../core/terminal/fixtures/service.ts';
import type { CheckoutView } from '../core/terminal/views.ts';
import { BRIDGE_PATH, BRIDGE_PROTOCOL, DEVICE_PROTOCOL_PREFIX, type ListenMessage, type ServerMessage } from '../shared/ws-protocol.ts';

export const STORE_ID = 1;
/** The push events a till's page listens to (src/stores: checkout.ts, status.ts, attention.ts). */
export const TILL_PAGE_EVENTS = ['core.status', 'checkout.changed', 'attention.changed'] as const;
/** A sale not seen paid within this long means something is broken, not slow: the run stops. */
const SALE_TIMEOUT_MS = 60_000;

export interface Credentials {
  name: string;
  pin: string;
}

/** What tills.ts hands the thread. */
export interface TillsInput {
  /** The browser shell's origin (http://127.0.0.1:port). */
  origin: string;
  sandboxUrl: string;
  /** One per till: its checkout, the pairing code a manager asked for it, and the origin it connects to when not `origin` (another core's address). */
  tills: { checkoutId: number; code: string; origin?: string }[];
  cashier: Credentials;
  /** Per round: the sales bound and the time bound. */
  maxSales: number;
  maxSeconds: number;
  /** Rounds rung up one after another by the same tills, each on a `go`. */
  rounds: number;
}

/** What the thread posts when it is done. */
export interface TillsOutput {
  /** Per sale number (in the order sales were started): charge sent → paid push; the charge's round trip; payment sent → paid push. */
  latencies: number[];
  charges: number[];
  payments: number[];
  /** Per sale number: the checkout of the till that rang it up. */
  checkouts: number[];
  seconds: number;
  stoppedBy: 'sales' | 'time';
  pushes: number;
  misrouted: number;
}

export type TillsMessage = { type: 'ready' } | { type: 'done'; output: TillsOutput } | { type: 'failed'; message: string };

type Envelope = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string; params?: unknown } };

/** One bridge connection, as the renderer's transport makes one (electron/shared/ws-protocol.ts). */
export class BridgeConnection {
  readonly #ws: WebSocket;
  readonly #replies = new Map<number, (envelope: Envelope) => void>();
  #nextId = 1;
  /** The `device` message the server sends right after connecting. */
  readonly device: Promise<Extract<ServerMessage, { type: 'device' }>>;
  /** Resolves once the connection closed (its core died, a relay dropped it, or close()). */
  readonly closed: Promise<void>;
  onEvent: (event: string, payload: unknown) => void = () => undefined;

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    // An error after the connection opened (a core killed mid-frame) is followed by its close.
    ws.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      ws.once('close', () => {
        // A call sent on a connection that closed is never answered: its caller hears so now.
        for (const reply of this.#replies.values()) reply({ ok: false, error: { code: 'closed', message: 'the connection closed before the reply' } });
        this.#replies.clear();
        resolve();
      }),
    );
    let gotDevice: (msg: Extract<ServerMessage, { type: 'device' }>) => void = () => undefined;
    this.device = new Promise((resolve) => (gotDevice = resolve));
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as ServerMessage;
      if (msg.type === 'reply') {
        const reply = this.#replies.get(msg.id);
        this.#replies.delete(msg.id);
        reply?.(msg.envelope as Envelope);
      } else if (msg.type === 'event') {
        this.onEvent(msg.event, msg.payload);
      } else if (msg.type === 'device') {
        gotDevice(msg);
      }
    });
  }

  /** Opens a bridge connection to the shell at `origin` offering `credential` (a `pos.device.`/`pos.token.` protocol) or none (unpaired). */
  static open(origin: string, credential: string | null): Promise<BridgeConnection> {
    const url = `${origin.replace(/^http/, 'ws')}${BRIDGE_PATH}`;
    const ws = new WebSocket(url, credential === null ? [BRIDGE_PROTOCOL] : [BRIDGE_PROTOCOL, credential], { origin, perMessageDeflate: false });
    const connection = new BridgeConnection(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(connection));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`bench:tills: the bridge refused the connection (${res.statusCode})`)));
    });
  }

  /** Calls a bridge method; resolves with its result, throws its error's code and sentence. */
  call<T>(method: string, args?: unknown): Promise<T> {
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      if (this.#ws.readyState !== WebSocket.OPEN) {
        reject(new Error(`bench:tills: ${method} not sent: the connection is closed`));
        return;
      }
      this.#replies.set(id, (envelope) => {
        if (envelope.ok) resolve(envelope.result as T);
        else reject(new Error(`bench:tills: ${method} refused: ${envelope.error.code}: ${envelope.error.message} ${JSON.stringify(envelope.error.params ?? {})}`));
      });
      this.#ws.send(JSON.stringify({ id, method, args }));
    });
  }

  /** Says which push events this connection's page listens to (ws-protocol's ListenMessage). */
  listen(events: readonly string[]): void {
    this.#ws.send(JSON.stringify({ listen: [...events] } satisfies ListenMessage));
  }

  close(): Promise<void> {
    if (this.#ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.#ws.once('close', () => resolve());
      this.#ws.close();
    });
  }
}

/** A paired till on one checkout, with its cashier signed in, as a tablet would have it. */
class Till {
  readonly checkoutId: number;
  readonly #bridge: BridgeConnection;
  /** Sales this till has seen paid in its pushes, and who waits for one. */
  readonly #paid = new Set<string>();
  #waiting: { saleId: string; resolve: () => void } | null = null;
  pushes = 0;
  /** Pushes of another checkout's view: the core must never send them (INTERFACE-9). */
  misrouted = 0;

  constructor(checkoutId: number, bridge: BridgeConnection) {
    this.checkoutId = checkoutId;
    this.#bridge = bridge;
    bridge.onEvent = (event, payload) => {
      if (event !== 'checkout.changed') return;
      const view = payload as CheckoutView;
      this.pushes++;
      if (view.checkout_id !== this.checkoutId || view.store_id !== STORE_ID) {
        this.misrouted++;
        return;
      }
      for (const sale of [view.newest, ...view.recent]) if (sale?.status === 'paid') this.#paid.add(sale.sale_id);
      if (this.#waiting && this.#paid.has(this.#waiting.saleId)) this.#waiting.resolve();
    };
  }

  /** Pairs a till on `checkoutId` with a manager's pairing code, as a tablet does, and signs the cashier in on it. */
  static async pair(origin: string, checkoutId: number, code: string, cashier: Credentials): Promise<Till> {
    const unpaired = await BridgeConnection.open(origin, null);
    const { credential } = await unpaired.call<{ credential: string }>('pairing.pair', { code });
    await unpaired.close();
    const bridge = await BridgeConnection.open(origin, `${DEVICE_PROTOCOL_PREFIX}${credential}`);
    // What a till's page listens to (src/: the status bar, the checkout, a supervisor's list).
    bridge.listen(TILL_PAGE_EVENTS);
    const hello = await bridge.device;
    if (hello.device?.checkoutId !== checkoutId) throw new Error(`bench:tills: till ${checkoutId} connected as ${JSON.stringify(hello)}`);
    await bridge.call('auth.signIn', cashier);
    return new Till(checkoutId, bridge);
  }

  /** `sale.charge` as the cashier's screen sends it; resolves with the new sale's id. */
  async charge(amountCents: number): Promise<string> {
    const typed = `${Math.floor(amountCents / 100)},${String(amountCents % 100).padStart(2, '0')}`;
    const view = await this.#bridge.call<CheckoutView>('sale.charge', { amount: typed });
    const saleId = view.newest?.sale_id;
    if (saleId === undefined || view.newest?.amount_cents !== amountCents) throw new Error(`bench:tills: till ${this.checkoutId}'s charge did not create its sale`);
    return saleId;
  }

  /** Resolves once a push has shown `saleId` paid (perhaps already). */
  paid(saleId: string): Promise<void> {
    if (this.#paid.has(saleId)) {
      this.#paid.clear();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`bench:tills: till ${this.checkoutId} never saw sale ${saleId} paid`)), SALE_TIMEOUT_MS);
      this.#waiting = {
        saleId,
        resolve: () => {
          clearTimeout(timer);
          this.#waiting = null;
          this.#paid.clear();
          resolve();
        },
      };
    });
  }

  close(): Promise<void> {
    return this.#bridge.close();
  }
}

async function ringUp(input: TillsInput, tills: readonly Till[]): Promise<TillsOutput> {
  const svc = serviceControl(input.sandboxUrl);
  const latencies: number[] = [];
  const charges: number[] = [];
  const payments: number[] = [];
  const checkouts: number[] = [];
  let started = 0;
  // A till's counts run on from round to round: this round's are what they grow by.
  const pushesBefore = tills.reduce((sum, t) => sum + t.pushes, 0);
  const misroutedBefore = tills.reduce((sum, t) => sum + t.misrouted, 0);
  const t0 = performance.now();
  const deadline = t0 + input.maxSeconds * 1000;
  let stoppedBy: TillsOutput['stoppedBy'] = 'sales';
  await Promise.all(
    tills.map(async (till) => {
      for (;;) {
        if (started >= input.maxSales) return;
        if (performance.now() >= deadline) {
          stoppedBy = 'time';
          return;
        }
        const n = started++;
        const s0 = performance.now();
        const saleId = await till.charge(100 + ((n * 37) % 9_900));
        const s1 = performance.now();
        const paid = till.paid(saleId);
        // The payer scans the checkout's printed QR: it pays the checkout's newest sale.
        const pay = await svc('POST', '/_sandbox/pay', { store_id: STORE_ID, checkout_id: till.checkoutId });
        if (pay.status !== 200) throw new Error(`bench:tills: paying checkout ${till.checkoutId} answered ${pay.status}: ${JSON.stringify(pay.body)}`);
        await paid;
        const s2 = performance.now();
        latencies[n] = s2 - s0;
        charges[n] = s1 - s0;
        payments[n] = s2 - s1;
        checkouts[n] = till.checkoutId;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const pushes = tills.reduce((sum, t) => sum + t.pushes, 0) - pushesBefore;
  const misrouted = tills.reduce((sum, t) => sum + t.misrouted, 0) - misroutedBefore;
  return { latencies, charges, payments, checkouts, seconds, stoppedBy, pushes, misrouted };
}

/** The thread: pair, say ready, ring up a round on each `go` and post its figures, close every till. */
async function runThread(input: TillsInput): Promise<void> {
  const port = parentPort!;
  const tills: Till[] = [];
  const go = () => new Promise<void>((resolve) => port.once('message', () => resolve()));
  try {
    for (const t of input.tills) tills.push(await Till.pair(t.origin ?? input.origin, t.checkoutId, t.code, input.cashier));
    let next = go();
    port.postMessage({ type: 'ready' } satisfies TillsMessage);
    for (let round = 0; round < input.rounds; round++) {
      await next;
      next = go();
      port.postMessage({ type: 'done', output: await ringUp(input, tills) } satisfies TillsMessage);
    }
  } catch (err) {
    port.postMessage({ type: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) } satisfies TillsMessage);
  } finally {
    await Promise.all(tills.map((t) => t.close().catch(() => undefined)));
  }
}

/**
 * The tills' thread seen from the bench: `next()` is its next message (a thread that fails or
 * stops is a rejection), `go()` starts a round, `end()` lets it close its connections and then
 * ends it.
 */
export function startTillsThread(input: TillsInput): { next: () => Promise<TillsMessage>; go: () => void; end: () => Promise<void> } {
  const thread = new Worker(new URL('./till-clients.ts', import.meta.url), { workerData: { tillsBench: input } });
  const next = () =>
    new Promise<TillsMessage>((resolve, reject) => {
      const off = () => {
        thread.off('message', onMessage);
        thread.off('error', onError);
        thread.off('exit', onExit);
      };
      const onMessage = (msg: TillsMessage) => (off(), resolve(msg));
      const onError = (err: Error) => (off(), reject(err));
      const onExit = (code: number) => (off(), reject(new Error(`bench:tills: the tills' thread stopped (exit code ${code})`)));
      thread.on('message', onMessage).on('error', onError).on('exit', onExit);
    });
  return {
    next,
    go: () => thread.postMessage('go'),
    end: async () => {
      // The thread closes its connections once it has posted, and then ends; one that does not
      // within a few seconds is ended here. threadId is -1 once the thread has ended.
      const exited = thread.threadId === -1 ? Promise.resolve() : new Promise<void>((resolve) => thread.once('exit', () => resolve()));
      await Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, 5_000).unref())]);
      await thread.terminate();
    },
  };
}

if (parentPort !== null && (workerData as { tillsBench?: TillsInput } | null)?.tillsBench !== undefined) {
  void runThread((workerData as { tillsBench: TillsInput }).tillsBench);
}
