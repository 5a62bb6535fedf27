/**
 * The import graph of electron/ (every static, type-only, re-export and dynamic import of
 * the code the app runs; tests and test fixtures aside): no module imports itself round a
 * cycle, type-only imports included (a shared type belongs to the module that owns the
 * concept), nothing the core reaches is the sandbox (the core receives a service
 * endpoint: electron/compose.ts), and no module of the core imports a journal adapter but
 * the composing one (the core knows journal/port.ts; core/services/parts.ts opens the file
 * journal). ESLint says the same per file; this sees the whole graph.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const electronDir = join(root, 'electron');

function isProductCode(path: string): boolean {
  return path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.split('/').includes('fixtures') && !path.split('/').includes('conformance');
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

const SPECIFIERS = [/^\s*(?:import|export)\s[^'"]*?\sfrom\s+['"]([^'"]+)['"]/gm, /^\s*import\s+['"]([^'"]+)['"]/gm, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g];

/** Relative imports of one file, resolved to repository paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  const found = new Set<string>();
  for (const pattern of SPECIFIERS) {
    for (const m of text.matchAll(pattern)) {
      const spec = m[1] ?? '';
      if (spec.startsWith('.')) found.add(relative(root, resolve(dirname(file), spec)));
    }
  }
  return [...found];
}

const graph = new Map<string, string[]>(
  walk(electronDir)
    .filter(isProductCode)
    .map((file) => [relative(root, file), importsOf(file)]),
);

function cycles(): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (state.get(next) === undefined) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return found;
}

function reachableFrom(start: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...start];
  while (queue.length > 0) {
    const node = queue.pop() as string;
    if (seen.has(node)) continue;
    seen.add(node);
    queue.push(...(graph.get(node) ?? []));
  }
  return seen;
}

describe('the import graph of electron/', () => {
  it('is read (a walker that finds nothing proves nothing)', () => {
    expect(graph.get('electron/core/services/parts.ts')).toContain('electron/core/journal/journal.ts');
    expect(graph.get('electron/compose.ts')).toContain('electron/sandbox/endpoint.ts');
  });

  it('has no cycle, type-only imports included', () => {
    expect(cycles().map((c) => c.join(' → '))).toEqual([]);
  });

  it('the core reaches nothing of the sandbox, not even by dynamic import', () => {
    const core = [...graph.keys()].filter((f) => f.startsWith('electron/core/'));
    expect([...reachableFrom(core)].filter((f) => f.startsWith('electron/sandbox/'))).toEqual([]);
  });

  it('the core reaches no storage backend: it is handed one by the entry points', () => {
    const core = [...graph.keys()].filter((f) => f.startsWith('electron/core/'));
    expect([...reachableFrom(core)].filter((f) => f.startsWith('electron/postgres/'))).toEqual([]);
  });

  it("the core imports the journal's port, and only the composition opens the file journal", () => {
    // port.ts is the surface; canonical.ts is the hash chain's form, the same on every backend.
    const neutral = new Set(['electron/core/journal/port.ts', 'electron/core/journal/canonical.ts']);
    const adapterImports = [...graph]
      .filter(([file]) => file.startsWith('electron/core/') && !file.startsWith('electron/core/journal/') && file !== 'electron/core/services/parts.ts')
      .flatMap(([file, imports]) => imports.filter((i) => i.startsWith('electron/core/journal/') && !neutral.has(i)).map((i) => `${file} → ${i}`));
    expect(adapterImports).toEqual([]);
    expect(graph.get('electron/core/core.ts')).toContain('electron/core/journal/port.ts');
  });
});
