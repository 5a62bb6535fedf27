// Issue point 8: with a persistFile the state survives a restart (a restarted app finds its
// sales), writes are atomic and flushed on close, a corrupt file is moved aside.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver, startTestSandbox, waitFor } from './conformance/harness.ts';
import { writeFileAtomic } from '../core/atomic-file.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbox-persist-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('persistFile', () => {
  it('a restarted sandbox finds its sales, QRs, configs and clock', async () => {
    const file = join(dir, 'state.json');
    const first = await startTestSandbox({ persistFile: file });
    await first.api.printedCheckout(1);
    const displaced = await first.api.sale({ amount: '1.00' });
    const sale = await first.api.sale({ amount: '12.34', external_id: 'kept' });
    await first.api.advance(120);
    const clockBefore = (await first.api.control('GET', '/clock')).body.offset_ms;
    await first.close();
    expect(JSON.parse(await readFile(file, 'utf8')).version).toBe(1);

    const second = await startTestSandbox({ persistFile: file });
    try {
      const tx = await second.api.get(`/v2/tx_status/${sale.body.pix_id}`);
      expect(tx.body).toMatchObject({ pix_id: sale.body.pix_id, status: 'pending', amount_brl: '12.34' });
      expect((await second.api.get(`/v2/tx_status/${displaced.body.pix_id}`)).status).toBe(404);
      expect((await second.api.control('GET', '/clock')).body.offset_ms).toBeGreaterThanOrEqual(clockBefore);
      expect((await second.api.get('/v2/stores/1/checkouts')).body[0].default_qr).toBe('printed_dynamic_qr');
      // The restored sale is still the checkout's newest: paying the printed QR credits it.
      const qr = (await second.api.get('/v2/printed_dynamic_qrs')).body.stores[0].checkouts[0].printed_dynamic_qrs[0];
      const pay = await second.api.control('POST', '/pay', { emv: qr.qr_emvcode });
      expect(pay.body.pix_id).toBe(sale.body.pix_id);
    } finally {
      await second.close();
    }
  });

  it('writes soon after a change, without waiting for close', async () => {
    const file = join(dir, 'debounced.json');
    const s = await startTestSandbox({ persistFile: file });
    try {
      const sale = await s.api.sale({ amount: '2.00' });
      await waitFor(async () => {
        const text = await readFile(file, 'utf8').catch(() => '');
        return text.includes(sale.body.pix_id) ? true : undefined;
      }, 'the debounced write');
    } finally {
      await s.close();
    }
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('a webhook still to retry is retried after a restart', async () => {
    const file = join(dir, 'outbox.json');
    const receiver = await new Receiver().start();
    receiver.respond = () => 500;
    const first = await startTestSandbox({ persistFile: file, webhook: { url: receiver.url } });
    const sale = await first.api.sale({ amount: '3.00' });
    await first.api.control('POST', '/pay', { emv: sale.body.emv });
    await waitFor(() => (receiver.deliveries.length >= 2 ? true : undefined), 'the failed first attempts');
    await waitFor(async () => {
      const events = (await first.api.control('GET', '/events')).body as { state: string }[];
      return events.every((e) => e.state === 'pending') ? true : undefined;
    }, 'the failures to be recorded');
    await first.close();
    receiver.respond = () => 200;
    const second = await startTestSandbox({ persistFile: file, webhook: { url: receiver.url } });
    try {
      await second.api.advance(5);
      await waitFor(() => (receiver.deliveries.filter((d) => d.answered === 200).length >= 2 ? true : undefined), 'the retries after restart');
      const retried = receiver.deliveries.filter((d) => d.answered === 200).map((d) => d.headers['webhook-id']);
      const original = receiver.deliveries.filter((d) => d.answered === 500).map((d) => d.headers['webhook-id']);
      expect(new Set(retried)).toEqual(new Set(original));
    } finally {
      await second.close();
      await receiver.close();
    }
  });

  it('a corrupt file is moved aside and the sandbox starts from the fixture', async () => {
    const file = join(dir, 'corrupt.json');
    await writeFile(file, '{"version": 1, "sales": ');
    const lines: string[] = [];
    const s = await startTestSandbox({ persistFile: file, log: (l) => lines.push(l) });
    try {
      expect((await s.api.get('/v2/stores')).body).toHaveLength(1);
      expect(lines.some((l) => l.includes('moved to'))).toBe(true);
      expect((await readdir(dir)).some((n) => n.startsWith('corrupt.json.corrupt-'))).toBe(true);
    } finally {
      await s.close();
    }
  });
});

describe('writeFileAtomic', () => {
  it('replaces the file whole and leaves no temp file', async () => {
    const file = join(dir, 'atomic.json');
    await writeFileAtomic(file, 'first');
    await Promise.all(Array.from({ length: 20 }, (_, i) => writeFileAtomic(file, `version ${i} `.repeat(1000))));
    const text = await readFile(file, 'utf8');
    expect(text).toMatch(/^(version \d+ )+$/);
    expect(new Set(text.trim().split(' ').filter((w) => /^\d+$/.test(w))).size).toBe(1);
    expect((await readdir(dir)).filter((n) => n.startsWith('atomic.json.'))).toEqual([]);
  });
});
