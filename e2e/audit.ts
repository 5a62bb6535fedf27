import type { Locator, Page } from '@playwright/test';

/**
 * Issue 26's layout and words audits, run inside the page on what a person sees: each returns
 * the problems found as sentences naming the element, so a failure says what to fix.
 */

/** The sizes a till, a back-office laptop and a portrait tablet show the app at. */
export const SIZES = [
  { width: 1024, height: 768 },
  { width: 1280, height: 800 },
  { width: 1366, height: 768 },
  { width: 800, height: 1280 },
] as const;

/**
 * Internal words and identifier shapes a person should never read outside a Details
 * disclosure, a CSV or the printed report's appendix (issue 26 point 2).
 */
export const INTERNAL_WORDS: readonly { what: string; source: string }[] = [
  // Field and event names: snake_case (pix_id, service_id, amount_brl, po_fixture_ok).
  { what: 'a field or fixture name', source: String.raw`\b[a-z][a-z0-9]*_[a-z0-9_]+\b` },
  { what: 'an event type name', source: String.raw`\b(?:sale|payment|charge|settlement|shift|operator|refund|office|webhook|receipt|journal|claims?)\.[a-z_]+\b` },
  { what: 'a UUID', source: String.raw`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b` },
  { what: 'a service id', source: String.raw`\b(?:med|svc|pqr|po|ext|pix|wh|evt)_[A-Za-z0-9]+` },
  { what: 'a provider id', source: String.raw`\b[a-z]+(?:-[a-z]+)*-provider\b` },
  { what: 'an internal status word', source: String.raw`\bDispatching\b|\bCharge completed\b` },
  // "247318297.53 ARS": a figure that did not go through src/lib/format.ts.
  { what: 'an amount without separators', source: String.raw`(?<![\d.,])\d{5,}\.\d{2,}(?![\d.,])` },
  { what: 'a rule that compares a thing with itself', source: String.raw`\b([A-Z]{3,4}) = \1\b` },
];

export interface Problem {
  check: 'header' | 'page-scroll' | 'overflow' | 'overlap' | 'contrast' | 'words';
  what: string;
}

/** Runs every in-page check at the current size: header, page scroll, overflow, overlap, contrast, words. */
export async function auditPage(page: Page): Promise<Problem[]> {
  return page.evaluate((words) => {
    const problems: { check: string; what: string }[] = [];
    const vw = window.innerWidth;
    const name = (el: Element) => {
      const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 50);
      const cls = typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\s+/).join('.') : '';
      return `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${cls} "${text}"`;
    };
    const shown = (el: Element): boolean => {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return false;
      const s = getComputedStyle(el);
      if (s.visibility === 'hidden' || s.display === 'none') return false;
      // Visually hidden text (for screen readers) is not seen.
      if (s.clipPath === 'inset(50%)' || (r.width <= 1 && r.height <= 1)) return false;
      return !el.closest('.visually-hidden, .language-label, [hidden], [aria-hidden="true"]');
    };
    const clippedByAncestor = (el: Element): boolean => {
      for (let a = el.parentElement; a; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.clipPath === 'inset(50%)') return true;
      }
      return false;
    };

    // ── Header: every part of it inside the window and not cut ──────────────
    const header = document.querySelector('.app-header');
    if (header) {
      const parts = header.querySelectorAll('h1, .nav-link, .signed-in, .language-select select, .device-name, .nav-toggle');
      for (const el of parts) {
        if (!shown(el) || clippedByAncestor(el)) continue;
        const r = el.getBoundingClientRect();
        if (r.left < -0.5 || r.right > vw + 0.5) problems.push({ check: 'header', what: `${name(el)} is outside the window (${Math.round(r.left)}–${Math.round(r.right)} of ${vw})` });
        // Cut by its container (a scrolling or clipped row).
        for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
          const s = getComputedStyle(a);
          if (s.overflowX === 'visible') continue;
          const ar = a.getBoundingClientRect();
          if (r.left < ar.left - 0.5 || r.right > ar.right + 0.5) problems.push({ check: 'header', what: `${name(el)} is cut by ${name(a)}` });
        }
        if (el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'SELECT') problems.push({ check: 'header', what: `${name(el)} does not fit its box` });
      }
      const nav = header.querySelector('.app-nav');
      if (nav && shown(nav) && nav.scrollWidth > nav.clientWidth + 1) problems.push({ check: 'header', what: `the screens' row is cut (${nav.scrollWidth} px in ${nav.clientWidth})` });
      const h1 = header.querySelector('h1');
      if (h1 && (!shown(h1) || clippedByAncestor(h1))) problems.push({ check: 'header', what: 'the app title is not shown' });
    }

    // ── Page: no horizontal scroll ──────────────────────────────────────────
    if (document.documentElement.scrollWidth > vw + 1) problems.push({ check: 'page-scroll', what: `the page scrolls sideways (${document.documentElement.scrollWidth} px in ${vw})` });

    // ── Tables: every column in view, none behind a sideways scroll ───────────
    for (const wrap of document.querySelectorAll('.table-wrap')) {
      if (shown(wrap) && wrap.scrollWidth > wrap.clientWidth + 1) problems.push({ check: 'overflow', what: `${name(wrap.querySelector('table') ?? wrap)} hides columns behind a sideways scroll (${wrap.scrollWidth} px in ${wrap.clientWidth}; columns ${[...wrap.querySelectorAll('thead th')].map((th) => Math.round(th.getBoundingClientRect().width)).join(', ')} px)` });
    }

    // ── Select boxes: the chosen option's words fit ──────────────────────────
    const canvas = document.createElement('canvas').getContext('2d');
    for (const select of document.querySelectorAll('select')) {
      if (!shown(select) || !canvas) continue;
      const s = getComputedStyle(select);
      canvas.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      const label = select.selectedOptions[0]?.textContent ?? '';
      const room = select.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - 16;
      if (canvas.measureText(label).width > room + 1) problems.push({ check: 'overflow', what: `${name(select)} cuts its chosen "${label}"` });
    }

    // ── Text that overflows its box, and the elements with text ──────────────
    const texts: Element[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const seen = new Set<Element>();
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const parent = n.parentElement;
      if (!parent || seen.has(parent) || !(n.textContent ?? '').trim()) continue;
      if (parent.closest('script, style, noscript, option, .print-only, .receipt-sheet')) continue;
      seen.add(parent);
      if (shown(parent) && !clippedByAncestor(parent)) texts.push(parent);
    }
    for (const el of texts) {
      const s = getComputedStyle(el);
      if (s.display.startsWith('inline') && s.display !== 'inline-block' && s.display !== 'inline-flex') continue;
      if (s.overflowX === 'auto' || s.overflowX === 'scroll') continue;
      if (el.scrollWidth > el.clientWidth + 1) problems.push({ check: 'overflow', what: `${name(el)} overflows its box (${el.scrollWidth} px in ${el.clientWidth})` });
    }
    // Boxes that stick out of their own card or tile (a figure spilling over the next tile).
    for (const el of document.querySelectorAll('.card, .total, .attention-item, .recent-item, .facts dd, td, th')) {
      if (!shown(el)) continue;
      const s = getComputedStyle(el);
      if (s.overflowX !== 'visible') continue;
      if (el.scrollWidth > el.clientWidth + 1) problems.push({ check: 'overflow', what: `${name(el)} overflows its box (${el.scrollWidth} px in ${el.clientWidth})` });
    }

    // ── Tiles that overlap their siblings ────────────────────────────────────
    for (const box of document.querySelectorAll('main *, header *')) {
      const s = getComputedStyle(box);
      if (!(s.display.includes('grid') || s.display.includes('flex'))) continue;
      const kids = [...box.children].filter((k) => shown(k) && !['absolute', 'fixed', 'sticky'].includes(getComputedStyle(k).position));
      const rects = kids.map((k) => k.getBoundingClientRect());
      for (let i = 0; i < kids.length; i++) {
        for (let j = i + 1; j < kids.length; j++) {
          const a = rects[i]!;
          const b = rects[j]!;
          const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
          const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
          if (w > 1 && h > 1) problems.push({ check: 'overlap', what: `${name(kids[i]!)} overlaps ${name(kids[j]!)}` });
        }
      }
    }

    // ── Contrast, WCAG AA: 4.5:1, or 3:1 for large text ────────────────────
    const rgba = (c: string): [number, number, number, number] => {
      const m = /rgba?\(([^)]+)\)/.exec(c);
      if (!m) return [0, 0, 0, 0];
      const p = m[1]!.split(/[\s,/]+/).filter(Boolean).map(Number);
      return [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0, p[3] ?? 1];
    };
    const over = (top: [number, number, number, number], under: [number, number, number]): [number, number, number] => [0, 1, 2].map((i) => top[i]! * top[3] + under[i]! * (1 - top[3])) as [number, number, number];
    const background = (el: Element): [number, number, number] => {
      const layers: [number, number, number, number][] = [];
      for (let a: Element | null = el; a; a = a.parentElement) {
        const c = rgba(getComputedStyle(a).backgroundColor);
        if (c[3] > 0) layers.push(c);
        if (c[3] >= 1) break;
      }
      let base: [number, number, number] = [255, 255, 255];
      for (const layer of layers.reverse()) base = over(layer, base);
      return base;
    };
    const luminance = ([r, g, b]: [number, number, number]) => {
      const f = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    for (const el of texts) {
      // WCAG exempts inactive controls.
      if (el.closest('button:disabled, [aria-disabled="true"], input:disabled, select:disabled')) continue;
      const s = getComputedStyle(el);
      const bg = background(el);
      let opacity = 1;
      for (let a: Element | null = el; a; a = a.parentElement) opacity *= Number(getComputedStyle(a).opacity);
      const fg = over([...rgba(s.color).slice(0, 3), rgba(s.color)[3] * opacity] as [number, number, number, number], bg);
      const [l1, l2] = [luminance(fg), luminance(bg)].sort((x, y) => y - x) as [number, number];
      const ratio = (l1 + 0.05) / (l2 + 0.05);
      const px = parseFloat(s.fontSize);
      const large = px >= 24 || (px >= 18.66 && Number(s.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5) - 0.01) problems.push({ check: 'contrast', what: `${name(el)} has contrast ${ratio.toFixed(2)}:1` });
    }

    // ── Words: internal names outside a Details disclosure ──────────────────
    const patterns = words.map((w) => ({ what: w.what, re: new RegExp(w.source, 'g') }));
    for (const el of texts) {
      if (el.closest('details')) continue;
      const own = [...el.childNodes].filter((c) => c.nodeType === Node.TEXT_NODE).map((c) => c.textContent ?? '').join(' ');
      // One report per word, under the first pattern that names it.
      const taken: [number, number][] = [];
      for (const p of patterns) {
        for (const m of own.matchAll(p.re)) {
          const [from, to] = [m.index, m.index + m[0].length];
          if (taken.some(([a, b]) => from < b && to > a)) continue;
          taken.push([from, to]);
          problems.push({ check: 'words', what: `${p.what} "${m[0]}" in ${name(el)}` });
        }
      }
    }
    return problems;
  }, INTERNAL_WORDS) as Promise<Problem[]>;
}

/** The main button of a form just opened is in view without scrolling (issue 26). */
export async function outOfView(page: Page, button: Locator): Promise<string | null> {
  const box = await button.boundingBox();
  const size = page.viewportSize();
  if (!box || !size) return 'the button is not shown';
  if (box.y < 0 || box.y + box.height > size.height || box.x < 0 || box.x + box.width > size.width) return `the button is at ${Math.round(box.x)},${Math.round(box.y)} in a ${size.width}×${size.height} window`;
  return null;
}
