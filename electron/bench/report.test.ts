import { describe, expect, it } from 'vitest';
import { CORE_END, CORE_START, SCREEN_HEADING, TILLS_END, TILLS_START, markdownTable, percentileMs, renderBenchmarks, renderMarkedSection, benchServerUrl, countOption } from './report.ts';

const measuredScreen = `${SCREEN_HEADING}

| what | p50 |
|---|---|
| Charge → QR visible | 41 ms |
`;

describe('renderBenchmarks', () => {
  it('writes a new file with the core block and a placeholder for the cashier screen', () => {
    const out = renderBenchmarks(null, 'core figures');
    expect(out.startsWith('# Benchmarks\n')).toBe(true);
    expect(out).toContain(`${CORE_START}\ncore figures\n${CORE_END}`);
    expect(out).toContain(`${SCREEN_HEADING}\n\nNot measured yet`);
  });

  it('replaces only the core block and keeps a measured cashier-screen section byte for byte', () => {
    const existing = `# Benchmarks\n\nnotes above\n\n${CORE_START}\nold figures\n${CORE_END}\n\n${measuredScreen}`;
    const out = renderBenchmarks(existing, 'new figures');
    expect(out).toBe(`# Benchmarks\n\nnotes above\n\n${CORE_START}\nnew figures\n${CORE_END}\n\n${measuredScreen}`);
    expect(out).not.toContain('old figures');
    expect(out).not.toContain('Not measured yet');
  });

  it('is idempotent: a second run with the same figures changes nothing', () => {
    const once = renderBenchmarks(`# Benchmarks\n\n${measuredScreen}`, 'figures');
    expect(renderBenchmarks(once, 'figures')).toBe(once);
  });

  it('puts the block under the title of a hand-written file and keeps the rest', () => {
    const out = renderBenchmarks(`# Benchmarks\n\nhand-written notes\n\n${measuredScreen}`, 'figures');
    expect(out).toBe(`# Benchmarks\n\n${CORE_START}\nfigures\n${CORE_END}\n\nhand-written notes\n\n${measuredScreen}`);
  });

  it('adds the cashier-screen placeholder when the section is missing, and reads a lone start marker as no block', () => {
    expect(renderBenchmarks(`# B\n\n${CORE_START}\nx\n${CORE_END}\n`, 'y')).toContain(`${SCREEN_HEADING}\n\nNot measured yet`);
    const lone = renderBenchmarks(`# B\n\n${CORE_START}\ndangling\n\n${measuredScreen}`, 'y');
    expect(lone.match(new RegExp(CORE_END, 'g'))).toHaveLength(1);
    expect(lone).toContain(measuredScreen);
  });
});

describe('markdownTable and percentileMs', () => {
  it('escapes pipes in cells', () => {
    expect(markdownTable([{ what: 'a|b', figure: '1', detail: '' }])).toContain('| a\\|b | 1 |  |');
  });

  it.each([
    [[], 50, 0],
    [[5], 95, 5],
    [[4, 1, 3, 2], 50, 2],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95, 10],
    [[1.234, 1.236], 100, 1.24],
  ])('percentile of %j at p%d is %d', (samples, p, expected) => {
    expect(percentileMs(samples, p)).toBe(expected);
  });
});

describe('renderMarkedSection (the 64-till block)', () => {
  const section = (s: string) => `${TILLS_START}\n${s}\n${TILLS_END}`;

  it('appends the block to a file without it and keeps everything else byte for byte', () => {
    const existing = `# Benchmarks\n\n${CORE_START}\ncore\n${CORE_END}\n\n${measuredScreen}`;
    expect(renderMarkedSection(existing, TILLS_START, TILLS_END, 'tills')).toBe(`${existing.trimEnd()}\n\n${section('tills')}\n`);
  });

  it('replaces only its own block, wherever it stands, and is idempotent', () => {
    const existing = `# Benchmarks\n\n${section('old')}\n\n${CORE_START}\ncore\n${CORE_END}\n`;
    const out = renderMarkedSection(existing, TILLS_START, TILLS_END, 'new');
    expect(out).toBe(`# Benchmarks\n\n${section('new')}\n\n${CORE_START}\ncore\n${CORE_END}\n`);
    expect(renderMarkedSection(out, TILLS_START, TILLS_END, 'new')).toBe(out);
  });

  it('starts a file when there is none, and keeps the core block out of its way', () => {
    expect(renderMarkedSection(null, TILLS_START, TILLS_END, 'tills')).toBe(`# Benchmarks\n\n${section('tills')}\n`);
    const both = renderBenchmarks(renderMarkedSection(null, TILLS_START, TILLS_END, 'tills'), 'core');
    expect(both).toContain(section('tills'));
    expect(both).toContain(`${CORE_START}\ncore\n${CORE_END}`);
  });
});

describe('the PostgreSQL benches’ options', () => {
  it('names the bench and what to give when the server is missing or empty', () => {
    expect(() => benchServerUrl(undefined, 'bench:cores')).toThrow(/^bench:cores needs --database-url postgres:\/\//);
    expect(() => benchServerUrl('', 'bench:takeover')).toThrow(/^bench:takeover needs --database-url/);
    expect(benchServerUrl('postgres://postgres@127.0.0.1:5432/postgres', 'bench:cores')).toBe('postgres://postgres@127.0.0.1:5432/postgres');
  });

  it.each(['0', '-3', '2.5', 'ten', '', '1e400', '9007199254740993'])('refuses %j as a count, naming the flag', (raw) => {
    expect(() => countOption(raw, 'kills', 10)).toThrow(/^--kills must be a whole number of at least 1, not /);
  });

  it('takes a whole count at or above its least, or the default when absent', () => {
    expect(countOption(undefined, 'kills', 10)).toBe(10);
    expect(countOption('12', 'kills', 10)).toBe(12);
    expect(countOption('10000', 'entries', 1_000_000, 10_000)).toBe(10_000);
    expect(() => countOption('9999', 'entries', 1_000_000, 10_000)).toThrow('--entries must be a whole number of at least 10,000, not "9999"');
  });
});
