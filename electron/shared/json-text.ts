/**
 * Objects whose JSON text never changes (keepJsonText), with their text once it is written.
 */
const KEPT = new WeakMap<object, string | undefined>();

/**
 * Says that `value` will never change: plain data, frozen all the way down (shared/freeze.ts),
 * with no Date or Map in it, whose state freezing does not reach. jsonText then writes its
 * text once and reuses it wherever it meets it again.
 */
export function keepJsonText(value: object): void {
  if (!KEPT.has(value)) KEPT.set(value, undefined);
}

/**
 * How deep jsonText looks for kept objects: a bridge message's checkout view holds its
 * sales' summaries four levels down (reply → envelope → result → recent → summary). Below
 * this, JSON.stringify writes the rest at once.
 */
const LOOK_DEPTH = 5;

/**
 * What JSON.stringify(value) writes, for a value whose JSON text is sent again and again with
 * most of it unchanged: the text of each kept object in it (keepJsonText) is written once and
 * reused. A checkout's view is pushed to its tills at every change of one of its sales, and a
 * sale's summary is frozen and kept while the sale does not change (core/terminal/views.ts):
 * ten of its eleven summaries are texts already written.
 */
export function jsonText(value: object): string {
  // Only an object whose toJSON answers undefined has no text; JSON.stringify gives undefined.
  return write(value, 0) ?? 'null';
}

function write(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (KEPT.has(value)) {
    let text = KEPT.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      KEPT.set(value, text);
    }
    return text;
  }
  if (depth >= LOOK_DEPTH) return JSON.stringify(value);
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (const item of value) parts.push(write(item, depth + 1) ?? 'null');
    return `[${parts.join(',')}]`;
  }
  // A Date, a boxed primitive, a class with toJSON: as JSON.stringify writes it.
  const proto: unknown = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value);
  const parts: string[] = [];
  for (const key of Object.keys(value)) {
    const member = write((value as Record<string, unknown>)[key], depth + 1);
    if (member !== undefined) parts.push(`${JSON.stringify(key)}:${member}`);
  }
  return `{${parts.join(',')}}`;
}
