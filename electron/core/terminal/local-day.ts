/**
 * A store's day as the person reading the journal lives it: the calendar day in the time
 * zone their screen shows times in (the renderer formats every time in its local zone, so
 * a day of the journal must start at that zone's midnight, daylight saving included).
 */

/** A calendar day, `YYYY-MM-DD`. */
export type LocalDay = string;

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const formats = new Map<string, Intl.DateTimeFormat>();

/** The formatter of a zone, or null when the zone is not one Intl knows. */
function formatOf(timeZone: string): Intl.DateTimeFormat | null {
  let format = formats.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    } catch {
      return null;
    }
    formats.set(timeZone, format);
  }
  return format;
}

export function isTimeZone(timeZone: string): boolean {
  return formatOf(timeZone) !== null;
}

function parts(at: number, timeZone: string): { y: number; m: number; d: number; h: number; min: number; s: number } {
  const format = formatOf(timeZone);
  if (!format) throw new RangeError(`unknown time zone ${timeZone}`);
  const p = Object.fromEntries(format.formatToParts(new Date(at)).map((x) => [x.type, x.value]));
  return { y: Number(p.year), m: Number(p.month), d: Number(p.day), h: Number(p.hour), min: Number(p.minute), s: Number(p.second) };
}

/** How far the zone's wall clock is ahead of UTC at `at` (whole seconds, as zones are). */
function offsetAt(at: number, timeZone: string): number {
  const p = parts(at, timeZone);
  const wall = Date.UTC(p.y, p.m - 1, p.d, p.h, p.min, p.s);
  return wall - Math.floor(at / 1000) * 1000;
}

export function parseLocalDay(day: string): { y: number; m: number; d: number } | null {
  const match = DAY_PATTERN.exec(day);
  if (!match) return null;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const probe = new Date(Date.UTC(y, m - 1, d));
  // "2026-02-30" is not a day.
  if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== m - 1 || probe.getUTCDate() !== d) return null;
  return { y, m, d };
}

/** The day `at` falls on, in the zone. */
export function localDayOf(at: number, timeZone: string): LocalDay {
  const p = parts(at, timeZone);
  return `${String(p.y).padStart(4, '0')}-${String(p.m).padStart(2, '0')}-${String(p.d).padStart(2, '0')}`;
}

/** The day before or after (calendar arithmetic, independent of the zone). */
export function addDays(day: LocalDay, days: number): LocalDay {
  const p = parseLocalDay(day);
  if (!p) throw new RangeError(`not a day: ${day}`);
  return new Date(Date.UTC(p.y, p.m - 1, p.d + days)).toISOString().slice(0, 10);
}

/** When the day starts in the zone (its first millisecond, epoch ms). */
export function localDayStart(day: LocalDay, timeZone: string): number {
  const p = parseLocalDay(day);
  if (!p) throw new RangeError(`not a day: ${day}`);
  const wallMidnight = Date.UTC(p.y, p.m - 1, p.d);
  // Two passes: the offset at the guess may differ from the offset at midnight itself
  // when a daylight-saving change happens between them.
  let start = wallMidnight - offsetAt(wallMidnight, timeZone);
  start = wallMidnight - offsetAt(start, timeZone);
  // A zone whose clocks skip midnight starts the day at the first instant that is on it.
  while (localDayOf(start, timeZone) !== day && localDayOf(start, timeZone) < day) start += 15 * 60_000;
  return start;
}

/** The day as a half-open range [from, to) of epoch ms. */
export function localDayRange(day: LocalDay, timeZone: string): { from: number; to: number } {
  return { from: localDayStart(day, timeZone), to: localDayStart(addDays(day, 1), timeZone) };
}
