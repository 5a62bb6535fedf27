/**
 * The body of an error answer, read whatever its shape: the three of reference section 7
 * (`{detail: "<string>"}`, `{detail: {reason, message, ...}}`, the 422 validation list), a
 * plain-text `Internal Server Error`, and what a proxy or a broken server sends instead.
 * Both the route table (routes.ts: a route's own reading of an answer) and the errors
 * (errors.ts) use it; it uses neither.
 */
export type BodyShape =
  /** `{detail: "<string>"}` */
  | 'detail_string'
  /** `{detail: {reason, message, ...}}` */
  | 'detail_reason'
  /** 422 `{detail: [{type, loc, msg, input, ctx}, ...]}` */
  | 'detail_validation'
  /** JSON, but none of the shapes above */
  | 'json_other'
  /** Plain text, such as `Internal Server Error` */
  | 'text'
  /** A web page, typically from a proxy in front of the service */
  | 'html'
  /** Declared JSON but not parseable */
  | 'invalid_json'
  | 'empty';

export interface ReasonDetail {
  reason: string;
  message: string | null;
  /** `already_exists` carries med_case_id and status_id (reference 4.6). */
  [extra: string]: unknown;
}

export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** The detail as received: its string, reason object or validation list; the (cut) text otherwise. */
export type ReceivedDetail = string | ReasonDetail | ValidationIssue[] | null;

export interface ParsedErrorBody {
  shape: BodyShape;
  detail: ReceivedDetail;
  /** The MED `reason`, when the body has one. */
  reason: string | null;
}

/** How much of a body is kept in an error (and its log line); the rest is cut. */
export const MAX_DETAIL_CHARS = 2000;
/** How much of a service's own text is quoted inside the sentence shown to a person. */
const SNIPPET_CHARS = 160;

export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** Text quoted in a sentence: one line, no control characters, short. */
export function snippet(text: string): string {
  // eslint-disable-next-line no-control-regex
  return cut(text.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim(), SNIPPET_CHARS);
}

function isJsonType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}

function isHtml(contentType: string | null, text: string): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'text/html' || /^\s*<(!doctype|html|head|body)\b/i.test(text);
}

function toValidationIssue(item: unknown): ValidationIssue {
  const o = item !== null && typeof item === 'object' ? (item as Record<string, unknown>) : {};
  const loc = Array.isArray(o['loc']) ? o['loc'].filter((x): x is string | number => typeof x === 'string' || typeof x === 'number') : [];
  const ctx = o['ctx'] !== null && typeof o['ctx'] === 'object' && !Array.isArray(o['ctx']) ? (o['ctx'] as Record<string, unknown>) : undefined;
  const issue: ValidationIssue = {
    type: typeof o['type'] === 'string' ? o['type'] : 'unknown',
    loc,
    msg: typeof o['msg'] === 'string' ? cut(o['msg'], 300) : '',
  };
  if ('input' in o) issue.input = o['input'];
  if (ctx !== undefined) issue.ctx = ctx;
  return issue;
}

/** Reads an error body of any shape. Pure; never throws. */
export function parseErrorBody(body: string, contentType: string | null): ParsedErrorBody {
  if (body.trim() === '') return { shape: 'empty', detail: null, reason: null };
  const looksJson = /^\s*[[{"]/.test(body);
  if (isJsonType(contentType) || looksJson) {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      // Declared JSON that does not parse (often cut by a proxy): keep the text, trust nothing in it.
      if (isJsonType(contentType)) return { shape: 'invalid_json', detail: cut(body, MAX_DETAIL_CHARS), reason: null };
      return { shape: isHtml(contentType, body) ? 'html' : 'text', detail: cut(body, MAX_DETAIL_CHARS), reason: null };
    }
    if (json !== null && typeof json === 'object' && !Array.isArray(json) && 'detail' in json) {
      const detail = (json as { detail: unknown }).detail;
      if (typeof detail === 'string') return { shape: 'detail_string', detail: cut(detail, MAX_DETAIL_CHARS), reason: null };
      if (Array.isArray(detail)) return { shape: 'detail_validation', detail: detail.slice(0, 50).map(toValidationIssue), reason: null };
      if (detail !== null && typeof detail === 'object' && typeof (detail as { reason?: unknown }).reason === 'string') {
        const d = detail as Record<string, unknown>;
        const message = typeof d['message'] === 'string' ? cut(d['message'], MAX_DETAIL_CHARS) : null;
        return { shape: 'detail_reason', detail: { ...d, reason: d['reason'] as string, message }, reason: d['reason'] as string };
      }
    }
    return { shape: 'json_other', detail: cut(body, MAX_DETAIL_CHARS), reason: null };
  }
  if (isHtml(contentType, body)) return { shape: 'html', detail: cut(body, MAX_DETAIL_CHARS), reason: null };
  return { shape: 'text', detail: cut(body, MAX_DETAIL_CHARS), reason: null };
}
