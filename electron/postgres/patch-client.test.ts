import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs install script, without types of its own
import { patch } from './patch-client.mjs';

const connection = (variant: string) => readFileSync(new URL(`../../node_modules/postgres/${variant}/connection.js`, import.meta.url), 'utf8');

describe('the PostgreSQL client as installed', () => {
  it('writes nothing to a closed connection: every copy carries the guard against the crash on a server restart', () => {
    for (const variant of ['src', 'cjs/src', 'cf/src']) {
      const text = connection(variant);
      expect(text, variant).toContain('/* pix-cashier: guarded nextWrite */');
      expect(text.match(/\n {4}clearImmediate\(nextWriteTimer\)\n {4}chunk = nextWriteTimer = null\n/g), variant).toHaveLength(2);
    }
  });

  it('patches the known client once, and refuses a client it does not know', () => {
    const known = [
      '  function nextWrite(fn) {',
      '    const x = socket.write(chunk, fn)',
      '  }',
      '  function terminate() {',
      '    clearImmediate(nextWriteTimer)',
      '  }',
      '  async function closed(hadError) {',
      '    clearImmediate(nextWriteTimer)',
      '  }',
    ].join('\n');
    const once = patch(known) as string;
    expect(once).toContain("if (!socket) {\n      chunk = nextWriteTimer = null\n      error(Errors.connection('CONNECTION_CLOSED', options))\n      return false\n    }");
    expect(patch(once)).toBe(once);
    expect(patch('function nextWrite(fn) { return socket.write(chunk, fn) }')).toBeNull();
  });
});
