import {
  createEnvelope,
  type Envelope,
  type Transport,
  type TransportMakeRequestResponse,
} from '@sentry/core';
import { describe, expect, it } from 'vitest';
import {
  DeliveryDeferred,
  deferringTransport,
  deliveryOf,
} from '#app/monitoring/delivery-transport';

describe('deliveryOf: what an answer means for the envelope', () => {
  it.each<[number | undefined, 'sent' | 'later']>([
    [200, 'sent'],
    [204, 'sent'],
    // Final: the same envelope gets the same answer.
    [400, 'sent'],
    [403, 'sent'],
    [408, 'sent'],
    [413, 'sent'],
    // Rate-limited, or the tunnel or Sentry busy or away: another time.
    [429, 'later'],
    [500, 'later'],
    [502, 'later'],
    [503, 'later'],
    [504, 'later'],
    // Nothing was sent (the queue of 64 was full): dropped, as the queue says.
    [undefined, 'sent'],
  ])('%s: %s', (status, delivery) => {
    expect(deliveryOf(status)).toBe(delivery);
  });
});

const event = (id: string): Envelope =>
  createEnvelope({ event_id: id }, [[{ type: 'event' }, { event_id: id }]]) as Envelope;

/** A fetch transport stand-in answering from a list, and the envelopes it was given. */
function answering(...answers: TransportMakeRequestResponse[]) {
  const given: Envelope[] = [];
  const factory = (): Transport => ({
    send: async (envelope) => {
      given.push(envelope);
      return answers.shift() ?? { statusCode: 200 };
    },
    flush: async () => true,
  });
  return { given, factory };
}

describe('deferringTransport: what the SDK would drop waits in the offline store', () => {
  const options = { url: 'http://x', recordDroppedEvent: () => {} };

  it('a 503 throws, for the offline transport to store it; the next envelope goes', async () => {
    const inner = answering({ statusCode: 503 });
    const transport = deferringTransport(inner.factory)(options);
    await expect(transport.send(event('a'))).rejects.toBeInstanceOf(DeliveryDeferred);
    await expect(transport.send(event('b'))).resolves.toEqual({ statusCode: 200 });
    expect(inner.given).toHaveLength(2);
  });

  it('a 400 is final: not kept', async () => {
    const inner = answering({ statusCode: 400 });
    const transport = deferringTransport(inner.factory)(options);
    await expect(transport.send(event('a'))).resolves.toEqual({ statusCode: 400 });
  });

  it('after a 429 with Retry-After: 5, nothing leaves for 5 s, and what comes is kept', async () => {
    let now = 1_000_000;
    const inner = answering({
      statusCode: 429,
      headers: { 'retry-after': '5', 'x-sentry-rate-limits': null },
    });
    const transport = deferringTransport(inner.factory, () => now)(options);
    await expect(transport.send(event('a'))).rejects.toBeInstanceOf(DeliveryDeferred);
    now += 4_999;
    await expect(transport.send(event('b'))).rejects.toBeInstanceOf(DeliveryDeferred);
    expect(inner.given).toHaveLength(1);
    now += 1;
    await expect(transport.send(event('b'))).resolves.toEqual({ statusCode: 200 });
    expect(inner.given).toHaveLength(2);
  });

  it('after a 429 without headers, the SDK default of 60 s', async () => {
    let now = 1_000_000;
    const inner = answering({ statusCode: 429 });
    const transport = deferringTransport(inner.factory, () => now)(options);
    await expect(transport.send(event('a'))).rejects.toBeInstanceOf(DeliveryDeferred);
    now += 59_999;
    await expect(transport.send(event('b'))).rejects.toBeInstanceOf(DeliveryDeferred);
    now += 1;
    await expect(transport.send(event('b'))).resolves.toEqual({ statusCode: 200 });
  });

  it('a network error reaches the offline transport as it is', async () => {
    const failing = (): Transport => ({
      send: async () => {
        throw new TypeError('Failed to fetch');
      },
      flush: async () => true,
    });
    const transport = deferringTransport(failing)(options);
    await expect(transport.send(event('a'))).rejects.toThrow('Failed to fetch');
  });
});
