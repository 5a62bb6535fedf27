/**
 * The renderer's Content Security Policy, the same in both shells: scripts and styles from
 * the app only, images also as data: URLs (the QR code), connections to the app's own
 * origin only (the browser shell's bridge socket).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "media-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/**
 * The pages carry the policy as a meta tag too (the Electron shell loads them from files,
 * where no header can say it). It is put there at build time from the constant above
 * (electron.vite.config.ts), so the pages and the browser shell's header cannot drift.
 */
export function withContentSecurityPolicy(html: string): string {
  if (/http-equiv=["']?content-security-policy/i.test(html)) throw new Error('the page already has a Content-Security-Policy: it is derived from electron/shared/csp.ts, remove it');
  const charset = /<meta charset="UTF-8" \/>\n?/i.exec(html);
  if (charset === null) throw new Error('the page needs <meta charset="UTF-8" /> first in its head, before the policy');
  const meta = `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}" />`;
  const at = charset.index + charset[0].length;
  return `${html.slice(0, at)}    ${meta}\n${html.slice(at)}`;
}
