/** A pairing code as a person reads it aloud: two groups of four digits ("1234 5678"). */
export function formatPairingCode(code: string): string {
  return /^\d{8}$/.test(code) ? `${code.slice(0, 4)} ${code.slice(4)}` : code;
}
