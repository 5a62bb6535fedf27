import { describe, expect, it } from 'vitest';
import { ApiError, detailError, reasonError, Router, validationError } from './http.ts';
import type { Reply } from './http.ts';

const ok = (tag: string) => (): Reply => ({ status: 200, body: tag });

describe('Router', () => {
  const router = new Router();
  router.add('GET', '/v1/settlements/:settlement_id', ok('detail'));
  router.add('GET', '/v1/settlements/pending-charges', ok('pending'));
  router.add('GET', '/v2/stores', ok('list'));
  router.add('POST', '/v2/stores', ok('create'));
  router.add('PATCH', '/v2/stores/:store_id', ok('patch'));
  router.add('GET', '/v2/payout_meds/:med_case_id', ok('med'));

  it('prefers the static route over a parameter, whatever the order', () => {
    const m = router.match('GET', '/v1/settlements/pending-charges');
    expect(m.kind === 'found' && m.pattern).toBe('/v1/settlements/pending-charges');
    const d = router.match('GET', '/v1/settlements/12');
    expect(d).toMatchObject({ kind: 'found', params: { settlement_id: '12' }, pattern: '/v1/settlements/:settlement_id' });
  });

  it('percent-decodes parameters and refuses undecodable ones', () => {
    expect(router.match('GET', '/v2/payout_meds/med%5Fabc')).toMatchObject({ kind: 'found', params: { med_case_id: 'med_abc' } });
    expect(router.match('GET', '/v2/payout_meds/%E0%A4%A').kind).toBe('not_found');
    expect(router.match('GET', '/v2/payout_meds/').kind).toBe('not_found');
  });

  it('answers method_not_allowed with every method of the path', () => {
    expect(router.match('DELETE', '/v2/stores')).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'POST'] });
    expect(router.match('get', '/v2/stores').kind).toBe('found');
    expect(router.match('GET', '/v2/stores/1')).toEqual({ kind: 'method_not_allowed', allow: ['PATCH'] });
  });

  it('answers not_found for near misses', () => {
    for (const path of ['/v2/stores/', '/v2', '/v2/stores/1/x', '/V2/stores', '']) expect(router.match('GET', path).kind).toBe('not_found');
  });

  it('refuses the same route twice and patterns without a leading slash', () => {
    expect(() => router.add('GET', '/v2/stores', ok('again'))).toThrow(/twice/);
    expect(() => router.add('GET', 'v2/x', ok('x'))).toThrow();
  });

  it('lists its routes', () => {
    expect(router.routes()).toContainEqual({ method: 'PATCH', pattern: '/v2/stores/:store_id' });
  });
});

describe('error bodies (reference 7)', () => {
  it('builds the three shapes', () => {
    expect(detailError(404, 'Store not found')).toMatchObject({ status: 404, body: { detail: 'Store not found' } });
    expect(reasonError(409, 'already_exists', 'Ya existe', { med_case_id: 'med_1', status_id: 'open' }).body).toEqual({ detail: { reason: 'already_exists', message: 'Ya existe', med_case_id: 'med_1', status_id: 'open' } });
    const v = validationError([{ type: 'missing', loc: ['body', 'x'], msg: 'Field required', input: {} }]);
    expect(v).toBeInstanceOf(ApiError);
    expect(v.status).toBe(422);
    expect(v.body).toEqual({ detail: [{ type: 'missing', loc: ['body', 'x'], msg: 'Field required', input: {} }] });
  });

  it('never serialises the body into the message (it may be hostile)', () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => validationError([{ type: 'x', loc: ['body'], msg: 'm', input: deep }])).not.toThrow();
  });
});
