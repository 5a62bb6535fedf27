/** Objects deepFreeze has frozen, members included. */
const FROZEN = new WeakSet<object>();
/** Of those, the plain data all the way down (objects and arrays of JSON values): nothing in them can change. */
const PLAIN = new WeakSet<object>();

/** Freezes a value and everything in it, so a caller that changes what it was handed fails loudly. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !FROZEN.has(value)) {
    // Marked before its members are visited, so a cycle ends here (and is not plain data).
    FROZEN.add(value);
    Object.freeze(value);
    let plain = isPlainData(value);
    for (const member of Object.values(value)) {
      deepFreeze(member);
      if (member !== null && typeof member === 'object' && !PLAIN.has(member)) plain = false;
    }
    if (plain) PLAIN.add(value);
  }
  return value;
}

/**
 * Whether `value` is plain data frozen by deepFreeze all the way down: it can never change.
 * Not a Date, a Map or anything else whose state freezing does not reach, nor what holds one.
 */
export function isFrozenData(value: object): boolean {
  return PLAIN.has(value);
}

function isPlainData(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}
