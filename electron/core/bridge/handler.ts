import { CoreError, toWireError, type Envelope } from '../errors.ts';
import type { Schema } from './schema.ts';

/** One bridge method: the validator of its argument and the function that serves it. */
export interface HandlerDef<A, R> {
  readonly args: Schema<A>;
  readonly run: (args: A) => Promise<R>;
}

export function handler<A, R>(args: Schema<A>, run: (args: A) => R | Promise<R>): HandlerDef<A, R> {
  return { args, run: async (a) => run(a) };
}

type AnyHandlers = { readonly [method: string]: { readonly args: Schema<unknown>; readonly run: (args: never) => Promise<unknown> } };

/**
 * The one entry point both shells call: validates the method name and the argument,
 * runs the handler, and wraps the outcome in an envelope. It never throws.
 */
export function createDispatcher(handlers: AnyHandlers, onUnexpected: (method: string, err: unknown) => void) {
  return async function dispatch(method: unknown, rawArgs: unknown): Promise<Envelope<unknown>> {
    try {
      if (typeof method !== 'string' || !Object.hasOwn(handlers, method)) {
        throw new CoreError('unknown_method', `The cashier app has no operation named ${JSON.stringify(String(method)).slice(0, 80)}.`);
      }
      const def = handlers[method] as unknown as HandlerDef<unknown, unknown>;
      const args = def.args.parse(rawArgs);
      return { ok: true, result: await def.run(args) };
    } catch (err) {
      if (!(err instanceof CoreError)) onUnexpected(String(method), err);
      return { ok: false, error: toWireError(err) };
    }
  };
}
