import { CoreError, toWireError, type Envelope } from '../errors.ts';
import { connectionMay, connectionRefusal, type Connection, type Reach } from '../devices/connection.ts';
import type { Caller, Session } from '../operators/operators.ts';
import { mayUse, refusal, type Access, type Role } from '../operators/roles.ts';
import type { v } from '../../shared/schema.ts';
import { argument, type Argument } from './arguments.ts';

/** What a call knows about where it comes from: its connection's session and who is signed in on it. */
export interface CallContext {
  session: Session;
  caller: Caller | null;
}

/**
 * One bridge method: the least role that may call it, the validator of its argument, the
 * function that serves it, and (for a refusal's sentence) what it does, in words.
 */
export interface HandlerDef<A, R> {
  readonly access: Access;
  /** Which connections it serves (devices/connection.ts); a till's unless `reaching` says more. */
  readonly reach: Reach;
  /** "tie a payment to a sale": completes "Only a supervisor or a manager can …". */
  readonly action: string;
  readonly args: Argument<A>;
  readonly run: (args: A, ctx: CallContext) => Promise<R>;
}

/**
 * A method for a role and up: its function receives the signed-in operator, the only
 * source of who did it (no method takes a person's name as an argument).
 */
export function handler<S extends v.GenericSchema, R>(
  access: Role,
  action: string,
  args: S,
  run: (args: v.InferOutput<S>, by: Caller, session: Session) => R | Promise<R>,
): HandlerDef<v.InferOutput<S>, R>;
/** A method any connection may call, signed in or not: it receives the connection's session. */
export function handler<S extends v.GenericSchema, R>(access: 'anyone', action: string, args: S, run: (args: v.InferOutput<S>, session: Session) => R | Promise<R>): HandlerDef<v.InferOutput<S>, R>;
export function handler<S extends v.GenericSchema, R>(
  access: Access,
  action: string,
  args: S,
  run: (args: v.InferOutput<S>, by: never, session: Session) => R | Promise<R>,
): HandlerDef<v.InferOutput<S>, R> {
  type A = v.InferOutput<S>;
  const serve = run as (args: A, by: Caller | Session, session: Session) => R | Promise<R>;
  return {
    access,
    reach: 'till',
    action,
    args: argument(args),
    run: async (a, ctx) => {
      // The dispatcher checked already; a handler called some other way checks again.
      if (access === 'anyone') return serve(a, ctx.session, ctx.session);
      if (ctx.caller === null || !mayUse(ctx.caller.role, access)) throw refusal(access, action, ctx.caller !== null);
      return serve(a, ctx.caller, ctx.session);
    },
  };
}

/** The same method for other connections than a till's: every display too, a device not paired yet, or the store's own window only. */
export function reaching<A, R>(reach: Exclude<Reach, 'till'>, def: HandlerDef<A, R>): HandlerDef<A, R> {
  return { ...def, reach };
}

type AnyHandlers = { readonly [method: string]: { readonly access: Access; readonly reach: Reach; readonly action: string; readonly args: Argument<unknown>; readonly run: (args: never, ctx: CallContext) => Promise<unknown> } };

export interface DispatcherDeps {
  /** The operator signed in on a session, looked up at each call; null when none (or disabled). */
  callerOf: (session: Session) => Caller | null;
  /** The session's connection as it stands now (a revoked device's is unpaired from then on). */
  connectionOf: (session: Session) => Connection;
  onUnexpected: (method: string, err: unknown) => void;
}

/**
 * The one entry point both shells call, with the calling connection's session: checks the
 * method name, then the caller's role (before reading the argument: a refused caller learns
 * nothing about it), validates the argument, runs the handler, and wraps the outcome in an
 * envelope. It never throws.
 */
export function createDispatcher(handlers: AnyHandlers, deps: DispatcherDeps) {
  return async function dispatch(method: unknown, rawArgs: unknown, session: Session): Promise<Envelope<unknown>> {
    try {
      if (typeof method !== 'string' || !Object.hasOwn(handlers, method)) {
        throw new CoreError('unknown_method', `The cashier app has no operation named ${JSON.stringify(String(method)).slice(0, 80)}.`);
      }
      const def = handlers[method] as unknown as HandlerDef<unknown, unknown>;
      const connection = deps.connectionOf(session);
      if (!connectionMay(connection, def.reach)) throw connectionRefusal(connection, def.reach);
      const caller = deps.callerOf(session);
      if (def.access !== 'anyone' && !mayUse(caller?.role ?? null, def.access)) throw refusal(def.access, def.action, caller !== null);
      const args = def.args.parse(rawArgs);
      return { ok: true, result: await def.run(args, { session, caller }) };
    } catch (err) {
      if (!(err instanceof CoreError)) deps.onUnexpected(String(method), err);
      return { ok: false, error: toWireError(err) };
    }
  };
}
