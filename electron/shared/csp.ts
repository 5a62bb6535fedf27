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
