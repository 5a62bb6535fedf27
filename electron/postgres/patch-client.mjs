/* global console, process */
// Runs after every install (package.json "postinstall"); plain JavaScript, since it runs on
// whatever Node runs npm.
//
// postgres (porsager) 3.4.9 defers small writes to a setImmediate. When the server closes a
// connection with such a write pending (a PostgreSQL restart, a failover), closed() clears the
// timer without resetting it and nulls the socket; the deferred write then calls
// socket.write on null and throws from the timer, where no caller can catch it: the whole
// core process dies instead of reconnecting (upstream issues #1066, #1154, #1208; fixes
// proposed in pull requests #1168, #1176, #1209, not released). This applies the proposed fix to
// the installed copy: a write with no socket rejects what waits on it with CONNECTION_CLOSED,
// and a closed or terminated connection forgets its pending write. A copy that already has
// the guard (a fixed release) is left alone; a copy this does not recognise fails the install
// with a sentence, so a changed client is looked at rather than shipped unguarded.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MARK = '/* pix-cashier: guarded nextWrite */';
const UNGUARDED = `  function nextWrite(fn) {
    const x = socket.write(chunk, fn)`;
const GUARDED = `  function nextWrite(fn) {
    ${MARK}
    if (!socket) {
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      return false
    }
    const x = socket.write(chunk, fn)`;
/** The two teardowns (terminate, closed) clear the timer on a line of its own. */
const CLEAR = '\n    clearImmediate(nextWriteTimer)\n';
const CLEAR_AND_FORGET = '\n    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n';

export function patch(text) {
  if (text.includes(MARK)) return text;
  if (!text.includes(UNGUARDED) || text.split(CLEAR).length !== 3) return null;
  return text.replace(UNGUARDED, GUARDED).split(CLEAR).join(CLEAR_AND_FORGET);
}

const files = ['src', 'cjs/src', 'cf/src'].map((d) => join(root, 'node_modules', 'postgres', d, 'connection.js')).filter((f) => existsSync(f));
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const file of files) {
    const before = readFileSync(file, 'utf8');
    const after = patch(before);
    if (after === null) {
      console.error(`${file} is not the postgres client this project knows (3.4.9): check whether it still crashes on a closed connection (electron/postgres/patch-client.mjs), then update this script.`);
      process.exit(1);
    }
    if (after !== before) writeFileSync(file, after);
  }
}
