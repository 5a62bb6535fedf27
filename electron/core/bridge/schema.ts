import { CoreError } from '../errors.ts';

/**
 * Runtime validation of every renderer-supplied argument, before any handler runs
 * (the renderer is untrusted input). Each schema carries its static type, so a
 * handler's argument type is derived from its validator and never written twice.
 */
export interface Schema<T> {
  /** Throws CoreError('invalid_argument') naming the field and what it must be. */
  parse(input: unknown, path?: string): T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

function fail(path: string, what: string): never {
  throw new CoreError('invalid_argument', `${path || 'The argument'} must be ${what}.`, { field: path || null });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

export const v = {
  /** No argument: undefined or null. */
  none(): Schema<void> {
    return {
      parse(input, path = '') {
        if (input !== undefined && input !== null) fail(path, 'empty (this call takes no argument)');
      },
    };
  },

  string(opts: { min?: number; max: number; pattern?: RegExp; describe?: string }): Schema<string> {
    return {
      parse(input, path = '') {
        const what = opts.describe ?? `text of ${opts.min ?? 0} to ${opts.max} characters`;
        if (typeof input !== 'string') fail(path, what);
        if (input.length < (opts.min ?? 0) || input.length > opts.max) fail(path, what);
        if (opts.pattern && !opts.pattern.test(input)) fail(path, what);
        return input;
      },
    };
  },

  int(opts: { min: number; max: number }): Schema<number> {
    return {
      parse(input, path = '') {
        if (typeof input !== 'number' || !Number.isSafeInteger(input) || input < opts.min || input > opts.max) {
          fail(path, `a whole number from ${opts.min} to ${opts.max}`);
        }
        return input;
      },
    };
  },

  boolean(): Schema<boolean> {
    return {
      parse(input, path = '') {
        if (typeof input !== 'boolean') fail(path, 'true or false');
        return input;
      },
    };
  },

  literal<const L extends readonly (string | number | boolean)[]>(...values: L): Schema<L[number]> {
    return {
      parse(input, path = '') {
        if (!values.includes(input as L[number])) fail(path, `one of ${values.map((x) => JSON.stringify(x)).join(', ')}`);
        return input as L[number];
      },
    };
  },

  optional<T>(inner: Schema<T>): Schema<T | undefined> & { optional: true } {
    return {
      optional: true,
      parse(input, path = '') {
        return input === undefined ? undefined : inner.parse(input, path);
      },
    };
  },

  nullable<T>(inner: Schema<T>): Schema<T | null> {
    return {
      parse(input, path = '') {
        return input === null ? null : inner.parse(input, path);
      },
    };
  },

  array<T>(inner: Schema<T>, opts: { max: number }): Schema<T[]> {
    return {
      parse(input, path = '') {
        if (!Array.isArray(input) || input.length > opts.max) fail(path, `a list of at most ${opts.max} items`);
        return input.map((item, i) => inner.parse(item, `${path}[${i}]`));
      },
    };
  },

  /** A plain object with exactly these keys: unknown keys are refused, not ignored. */
  object<S extends Record<string, Schema<unknown>>>(shape: S): Schema<ObjectOf<S>> & { readonly keys: readonly string[] } {
    return {
      // Readable by tests: which fields a bridge method takes (none may name a person).
      keys: Object.keys(shape),
      parse(input, path = '') {
        if (!isPlainObject(input)) fail(path, 'an object');
        for (const key of Object.keys(input)) {
          if (!Object.hasOwn(shape, key)) fail(path ? `${path}.${key}` : key, 'left out (it is not a known field)');
        }
        const out: Record<string, unknown> = {};
        for (const [key, schema] of Object.entries(shape)) {
          const value = schema.parse(input[key], path ? `${path}.${key}` : key);
          if (value !== undefined) out[key] = value;
        }
        return out as ObjectOf<S>;
      },
    };
  },
};

type OptionalKeys<S> = { [K in keyof S]: S[K] extends { optional: true } ? K : never }[keyof S];
type ObjectOf<S extends Record<string, Schema<unknown>>> = {
  [K in Exclude<keyof S, OptionalKeys<S>>]: Infer<S[K]>;
} & { [K in OptionalKeys<S>]?: Exclude<Infer<S[K]>, undefined> };
