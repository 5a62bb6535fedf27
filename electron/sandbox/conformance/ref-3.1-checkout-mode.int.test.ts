// Reference 3.1: the checkout mode and printed sale state machine, one test per row of its
// table (plus its closing rule), through HTTP.
import { describe, expect, it } from 'vitest';
import type { Json } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const { api } = useSandbox();

const setMode = (value: string): Promise<unknown> => api.post('/v2/stores/1/checkouts/1/configs', { config_type: 'default_qr', config_value: value });
const qrTypeOfNewSale = async (): Promise<string> => (await api.sale({ amount: '1.00' })).body.qr_type;
const tx = (pixId: string): Promise<Json> => api.get(`/v2/tx_status/${pixId}`);

describe('reference 3.1', () => {
  it('dynamic --configs default_qr=printed_dynamic_qr--> printed mode (with a printed QR)', async () => {
    await api.post('/v2/printed_dynamic_qrs', { checkout_id: 1 });
    expect(await qrTypeOfNewSale()).toBe('dynamic');
    await setMode('printed_dynamic_qr');
    expect(await qrTypeOfNewSale()).toBe('printed_dynamic');
  });

  it('... and without a printed QR later sales fail with 422', async () => {
    await setMode('printed_dynamic_qr');
    expect((await api.sale({ amount: '1.00' })).status).toBe(422);
  });

  it('printed --configs default_qr=dynamic--> dynamic mode', async () => {
    await api.printedCheckout(1);
    await setMode('dynamic');
    expect(await qrTypeOfNewSale()).toBe('dynamic');
  });

  it('dynamic --printed QR with auto_create_checkout--> printed mode, only after the printed QR exists', async () => {
    await api.control('POST', '/faults', { target: 'gateway', fault: 'printed_qr_error' });
    expect((await api.post('/v2/printed_dynamic_qrs', { checkout_id: 1, auto_create_checkout: true })).status).toBe(502);
    expect(await qrTypeOfNewSale()).toBe('dynamic');
    expect((await api.post('/v2/printed_dynamic_qrs', { checkout_id: 1, auto_create_checkout: true })).status).toBe(201);
    expect(await qrTypeOfNewSale()).toBe('printed_dynamic');
  });

  it('no pending sale --create_dynamic_pix--> sale pending, which expires after 5 minutes', async () => {
    await api.printedCheckout(1);
    const sale = await api.sale({ amount: '1.00' });
    expect((await tx(sale.body.pix_id)).body.status).toBe('pending');
    await api.advance(300);
    expect((await tx(sale.body.pix_id)).body.status).toBe('expired');
  });

  it('sale pending --create_dynamic_pix again--> new sale pending, earlier displaced, no webhook, TX not found', async () => {
    await api.printedCheckout(1);
    const earlier = await api.sale({ amount: '1.00' });
    const newer = await api.sale({ amount: '1.50' });
    expect((await tx(earlier.body.pix_id)).status).toBe(404);
    expect((await tx(newer.body.pix_id)).body.status).toBe('pending');
    expect((await api.control('GET', '/events')).body).toEqual([]);
  });

  it('sale pending --payer pays--> paid, webhooks carry that sale pix_id and service_id, credited to the newest sale', async () => {
    const qr = await api.printedCheckout(1);
    await api.sale({ amount: '1.00' });
    const newest = await api.sale({ amount: '2.00' });
    await api.control('POST', '/pay', { emv: qr.qr_emvcode });
    expect((await tx(newest.body.pix_id)).body.status).toBe('paid');
    const events = (await api.control('GET', '/events')).body;
    expect(events.map((e: Json) => [e.payload.pix_id, e.payload.service_id])).toEqual([
      [newest.body.pix_id, newest.body.service_id],
      [newest.body.pix_id, newest.body.service_id],
    ]);
  });

  it('displaced sale --late payment report--> reported for the displaced sale (not final)', async () => {
    await api.printedCheckout(1);
    const displaced = await api.sale({ amount: '1.00' });
    await api.sale({ amount: '2.00' });
    await api.control('POST', '/pay', { late_for: displaced.body.pix_id });
    const paid = (await api.control('GET', '/events')).body[0];
    expect(paid).toMatchObject({ event: 'charge.paid', payload: { pix_id: displaced.body.pix_id, service_id: displaced.body.service_id, amount_brl: '1.00' } });
  });

  it('with no pending sale, the printed QR cannot be read', async () => {
    const qr = await api.printedCheckout(1);
    expect((await api.control('POST', '/pay', { emv: qr.qr_emvcode })).status).toBe(409);
  });
});
