import { describe, expect, it } from 'vitest';
import { parseClientMessage } from './ws-protocol.ts';

describe('a message from the renderer', () => {
  it('is a call with a whole id and a method', () => {
    expect(parseClientMessage('{"id":7,"method":"sale.charge","args":{"amount":"1,00"}}')).toEqual({ id: 7, method: 'sale.charge', args: { amount: '1,00' } });
    expect(parseClientMessage('{"id":-1,"method":"x"}')).toBeNull();
    expect(parseClientMessage('{"id":1,"method":""}')).toBeNull();
  });

  it('or says which push events its page listens to, each once', () => {
    expect(parseClientMessage('{"listen":["checkout.changed","core.status","checkout.changed"]}')).toEqual({ listen: ['checkout.changed', 'core.status'] });
    expect(parseClientMessage('{"listen":[]}')).toEqual({ listen: [] });
  });

  it('is refused whole when malformed', () => {
    for (const text of ['not json', '[]', 'null', '{"listen":"checkout.changed"}', '{"listen":[1]}', '{"listen":[""]}', `{"listen":${JSON.stringify(Array.from({ length: 33 }, (_, i) => `e${i}`))}}`]) {
      expect(parseClientMessage(text), text).toBeNull();
    }
  });
});
