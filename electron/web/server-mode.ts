/**
 * What `npm run server` needs before it starts, as the sentence that says what to set. A
 * server core keeps the merchant's record in PostgreSQL (never in one machine's files) and
 * talks to the merchant's payment service; the embedded sandbox only when asked.
 */
export function serverRefusal(hasDatabase: boolean, hasService: boolean, sandboxAsked: boolean): string | null {
  if (!hasDatabase) {
    return 'npm run server keeps the journal in PostgreSQL: set POS_DATABASE_URL (for example postgres://cashier@db.example:5432/pix, the password in PGPASSWORD).';
  }
  if (!hasService && !sandboxAsked) {
    return 'npm run server talks to the merchant’s payment service: set POS_SERVICE_URL and POS_SERVICE_TOKEN, or add --sandbox to try it on the embedded sandbox.';
  }
  if (hasService && sandboxAsked) return '--sandbox runs on the embedded sandbox, but POS_SERVICE_URL names a real service: give one or the other.';
  return null;
}
