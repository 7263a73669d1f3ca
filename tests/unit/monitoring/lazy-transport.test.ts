import type { BaseTransportOptions, Envelope, Transport } from '@sentry/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lazyTransport, type TransportFactory } from '#app/monitoring/lazy-transport';

/** An envelope with one item of the given type, told apart by its header's event_id. */
const envelope = (id: string, type = 'event'): Envelope =>
  [{ event_id: id }, [[{ type }, {}]]] as unknown as Envelope;
const idOf = (sent: Envelope) => (sent[0] as { event_id: string }).event_id;

interface FakeTransport extends Transport {
  sent: string[];
  flushedWith: Array<number | undefined>;
}

function fakeTransport(
  answer: () => PromiseLike<{ statusCode: number }> = okAnswer,
): FakeTransport {
  const transport: FakeTransport = {
    sent: [],
    flushedWith: [],
    send(sent) {
      transport.sent.push(idOf(sent));
      return answer();
    },
    flush(timeout) {
      transport.flushedWith.push(timeout);
      return Promise.resolve(true);
    },
  };
  return transport;
}
const okAnswer = () => Promise.resolve({ statusCode: 200 });
/** The fallback where a test does not look at it. */
const plainTransport = () => fakeTransport();

function options(bufferSize?: number) {
  return {
    url: 'https://ingest.example/api/1/envelope/',
    bufferSize,
    recordDroppedEvent: vi.fn(),
  } satisfies BaseTransportOptions;
}

/** A chunk that arrives when the test says so. */
function laterChunk() {
  let arrive!: (make: TransportFactory<BaseTransportOptions>) => void;
  let fail!: (error: Error) => void;
  const loaded = new Promise<TransportFactory<BaseTransportOptions>>((resolve, reject) => {
    arrive = resolve;
    fail = reject;
  });
  return { loaded, arrive, fail };
}

/** Lets every promise callback already queued run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('lazyTransport', () => {
  it('holds what is sent before the chunk arrives, then hands it over in order', async () => {
    const chunk = laterChunk();
    const offline = fakeTransport();
    const plain = fakeTransport();
    const transport = lazyTransport(chunk.loaded, () => plain)(options(64));

    const first = transport.send(envelope('a'));
    const second = transport.send(envelope('b'));
    await settle();
    expect(offline.sent).toEqual([]);
    expect(plain.sent).toEqual([]);

    chunk.arrive(() => offline);
    await expect(first).resolves.toEqual({ statusCode: 200 });
    await expect(second).resolves.toEqual({ statusCode: 200 });
    expect(offline.sent).toEqual(['a', 'b']);
    expect(plain.sent).toEqual([]);
  });

  it('keeps the order of what is sent while the chunk is being handed over', async () => {
    const chunk = laterChunk();
    const offline = fakeTransport();
    const transport = lazyTransport(chunk.loaded, plainTransport)(options());
    const order = ['waited'];
    transport.send(envelope('waited'));
    chunk.arrive(() => offline);
    // One send on each of the next microtasks: before, during and after the hand-over.
    for (let tick = 0; tick < 8; tick++) {
      order.push(`tick ${tick}`);
      transport.send(envelope(`tick ${tick}`));
      await Promise.resolve();
    }
    await settle();
    expect(offline.sent).toEqual(order);
  });

  it('sends straight through the loaded transport once it is there', async () => {
    const offline = fakeTransport();
    const transport = lazyTransport(
      Promise.resolve(() => offline),
      plainTransport,
    )(options());
    await settle();
    transport.send(envelope('now'));
    // Synchronously: the SDK's own queue and rate limits see it at once.
    expect(offline.sent).toEqual(['now']);
  });

  it('gives the loaded transport the options the SDK made the transport with', async () => {
    const made: BaseTransportOptions[] = [];
    const given = options(64);
    lazyTransport(
      Promise.resolve((received: BaseTransportOptions) => {
        made.push(received);
        return fakeTransport();
      }),
      plainTransport,
    )(given);
    await settle();
    expect(made).toEqual([given]);
  });

  it('sends through the plain transport when the chunk cannot be loaded, what waited included', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const chunk = laterChunk();
    const plain = fakeTransport();
    const transport = lazyTransport(chunk.loaded, () => plain)(options());
    const waited = transport.send(envelope('before'));
    chunk.fail(new Error('Failed to fetch dynamically imported module'));
    await expect(waited).resolves.toEqual({ statusCode: 200 });
    transport.send(envelope('after'));
    expect(plain.sent).toEqual(['before', 'after']);
    expect(warn).toHaveBeenCalledOnce();
  });

  it('sends through the plain transport when the loaded one cannot be made', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const plain = fakeTransport();
    const transport = lazyTransport(
      Promise.resolve(() => {
        throw new Error('no IndexedDB');
      }),
      () => plain,
    )(options());
    await transport.send(envelope('a'));
    expect(plain.sent).toEqual(['a']);
  });

  it('makes the plain transport at once, and only once', () => {
    const made = vi.fn(() => fakeTransport());
    lazyTransport(laterChunk().loaded, made)(options());
    expect(made).toHaveBeenCalledOnce();
  });

  it('passes on a failed send of the loaded transport', async () => {
    const offline = fakeTransport(() => Promise.reject(new Error('network down')));
    const transport = lazyTransport(
      Promise.resolve(() => offline),
      plainTransport,
    )(options());
    await expect(transport.send(envelope('a'))).rejects.toThrow('network down');
  });

  it('holds at most the queue size while waiting, and records the rest as a queue overflow', async () => {
    const chunk = laterChunk();
    const offline = fakeTransport();
    const given = options(2);
    const transport = lazyTransport(chunk.loaded, plainTransport)(given);
    transport.send(envelope('a'));
    transport.send(envelope('b'));
    await expect(transport.send(envelope('c'))).resolves.toEqual({});
    expect(given.recordDroppedEvent).toHaveBeenCalledWith('queue_overflow', 'error', 1);
    chunk.arrive(() => offline);
    await settle();
    expect(offline.sent).toEqual(['a', 'b']);
  });

  it('does not record the loss of a client report, as the SDK does not', async () => {
    const given = options(1);
    const transport = lazyTransport(laterChunk().loaded, plainTransport)(given);
    transport.send(envelope('a'));
    await transport.send(envelope('report', 'client_report'));
    expect(given.recordDroppedEvent).not.toHaveBeenCalled();
  });

  it('holds the SDK default of 64 when the options name no queue size', async () => {
    const given = options();
    const transport = lazyTransport(laterChunk().loaded, plainTransport)(given);
    for (let index = 0; index < 64; index++) transport.send(envelope(`e${index}`));
    expect(given.recordDroppedEvent).not.toHaveBeenCalled();
    await transport.send(envelope('one too many'));
    expect(given.recordDroppedEvent).toHaveBeenCalledOnce();
  });

  it('flushes the loaded transport, waiting for it to arrive', async () => {
    const chunk = laterChunk();
    const offline = fakeTransport();
    const transport = lazyTransport(chunk.loaded, plainTransport)(options());
    const flushed = transport.flush(2_000);
    chunk.arrive(() => offline);
    await expect(flushed).resolves.toBe(true);
    expect(offline.flushedWith).toEqual([2_000]);
    await transport.flush();
    expect(offline.flushedWith).toEqual([2_000, undefined]);
  });

  it('answers a flush with false when the chunk has not arrived within its timeout', async () => {
    vi.useFakeTimers();
    const transport = lazyTransport(laterChunk().loaded, plainTransport)(options());
    const flushed = transport.flush(500);
    await vi.advanceTimersByTimeAsync(500);
    await expect(flushed).resolves.toBe(false);
  });
});
