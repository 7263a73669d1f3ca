/**
 * The ingest queue's shares (`createFairQueue` in app/server/inbox/store/ingest-thread.server.ts): who may wait, who is
 * pushed out, and in which order the thread gets them.
 */
import { describe, expect, it } from 'vitest';
import { createFairQueue } from '#app/server/inbox/store/ingest-thread.server';

/** Offers `items` (`client:name`) in order; what each was answered, `name → answer`. */
function offerAll(queue: ReturnType<typeof createFairQueue<string>>, items: string[]): string[] {
  return items.map((item) => {
    const [client = ''] = item.split(':');
    const offered = queue.offer(client, item);
    if (offered.kind !== 'queued') return `${item} ${offered.kind}`;
    return offered.pushedOut
      ? `${item} queued, pushing out ${offered.pushedOut}`
      : `${item} queued`;
  });
}

function takeAll(queue: ReturnType<typeof createFairQueue<string>>): string[] {
  const taken: string[] = [];
  for (let item = queue.take(); item !== undefined; item = queue.take()) taken.push(item);
  return taken;
}

describe('createFairQueue: who may wait', () => {
  it.each([
    {
      why: 'room for all: everyone waits',
      limits: { maxQueued: 4, perClient: 4 },
      offers: ['a:1', 'b:1', 'a:2'],
      answers: ['a:1 queued', 'b:1 queued', 'a:2 queued'],
    },
    {
      why: 'a client past its share is refused, another still waits',
      limits: { maxQueued: 10, perClient: 2 },
      offers: ['a:1', 'a:2', 'a:3', 'b:1'],
      answers: ['a:1 queued', 'a:2 queued', 'a:3 client', 'b:1 queued'],
    },
    {
      why: 'a full queue: a newcomer pushes out the newest of the client with the most',
      limits: { maxQueued: 3, perClient: 3 },
      offers: ['a:1', 'a:2', 'a:3', 'b:1'],
      answers: ['a:1 queued', 'a:2 queued', 'a:3 queued', 'b:1 queued, pushing out a:3'],
    },
    {
      why: 'a full queue of equals: the newcomer would have as many as the most, refused',
      limits: { maxQueued: 2, perClient: 3 },
      offers: ['a:1', 'b:1', 'c:1', 'b:2'],
      answers: ['a:1 queued', 'b:1 queued', 'c:1 full', 'b:2 full'],
    },
    {
      why: 'pushing out stops once the one with the most would have no more than the newcomer',
      limits: { maxQueued: 4, perClient: 4 },
      offers: ['a:1', 'a:2', 'a:3', 'a:4', 'b:1', 'b:2', 'b:3'],
      answers: [
        'a:1 queued',
        'a:2 queued',
        'a:3 queued',
        'a:4 queued',
        'b:1 queued, pushing out a:4',
        'b:2 queued, pushing out a:3',
        'b:3 full',
      ],
    },
    {
      why: 'of clients with the most, the first in turn gives up a place',
      limits: { maxQueued: 4, perClient: 4 },
      offers: ['a:1', 'b:1', 'a:2', 'b:2', 'c:1'],
      answers: [
        'a:1 queued',
        'b:1 queued',
        'a:2 queued',
        'b:2 queued',
        'c:1 queued, pushing out a:2',
      ],
    },
  ])('$why', ({ limits, offers, answers }) => {
    const queue = createFairQueue<string>(limits);
    expect(offerAll(queue, offers)).toEqual(answers);
    // Each envelope queued, less those pushed out.
    const queued = answers.filter((answer) => / queued/.test(answer)).length;
    const pushedOut = answers.filter((answer) => / pushing out /.test(answer)).length;
    expect(queue.size()).toBe(queued - pushedOut);
  });
});

describe('createFairQueue: the order the thread gets them', () => {
  it('serves in rounds, one envelope of each client, each client’s oldest first', () => {
    const queue = createFairQueue<string>({ maxQueued: 100, perClient: 100 });
    offerAll(queue, ['a:1', 'a:2', 'a:3', 'b:1', 'b:2', 'b:3']);
    expect(takeAll(queue)).toEqual(['a:1', 'b:1', 'a:2', 'b:2', 'a:3', 'b:3']);
  });

  it('serves, within a round, the client with fewer waiting first', () => {
    const queue = createFairQueue<string>({ maxQueued: 100, perClient: 100 });
    offerAll(queue, ['a:1', 'a:2', 'a:3', 'a:4', 'b:1', 'c:1', 'c:2']);
    expect(takeAll(queue)).toEqual(['b:1', 'c:1', 'a:1', 'c:2', 'a:2', 'a:3', 'a:4']);
  });

  it('puts a client that had nothing waiting in the round being served, ahead of long lines', () => {
    const queue = createFairQueue<string>({ maxQueued: 100, perClient: 100 });
    offerAll(queue, ['a:1', 'a:2', 'a:3', 'b:1', 'b:2', 'b:3']);
    expect([queue.take(), queue.take(), queue.take()]).toEqual(['a:1', 'b:1', 'a:2']);
    offerAll(queue, ['v:1']);
    expect(takeAll(queue)).toEqual(['v:1', 'b:2', 'a:3', 'b:3']);
  });

  it('gives a client back no more than the round being served after it was away', () => {
    const queue = createFairQueue<string>({ maxQueued: 100, perClient: 100 });
    offerAll(queue, ['a:1', 'a:2', 'a:3', 'a:4', 'a:5']);
    expect([queue.take(), queue.take(), queue.take()]).toEqual(['a:1', 'a:2', 'a:3']);
    // b was away for three rounds: it does not get three envelopes ahead of a.
    offerAll(queue, ['b:1', 'b:2', 'b:3']);
    expect(takeAll(queue)).toEqual(['b:1', 'a:4', 'b:2', 'a:5', 'b:3']);
  });

  it('takes out an envelope whose wait ran out, once', () => {
    const queue = createFairQueue<string>({ maxQueued: 100, perClient: 100 });
    offerAll(queue, ['a:1', 'a:2', 'b:1']);
    expect(queue.remove('a', 'a:1')).toBe(true);
    expect(queue.remove('a', 'a:1')).toBe(false);
    expect(queue.waitingOf('a')).toBe(1);
    expect(queue.remove('b', 'b:1')).toBe(true);
    expect(queue.waitingOf('b')).toBe(0);
    expect(takeAll(queue)).toEqual(['a:2']);
    expect(queue.size()).toBe(0);
  });

  it('keeps a place freed by a push-out for the newcomer: sizes stay within the limits', () => {
    const queue = createFairQueue<string>({ maxQueued: 8, perClient: 4 });
    const offers = Array.from({ length: 40 }, (_, i) => `${'abcdefghij'[i % 10]}:${i}`);
    offerAll(queue, offers);
    expect(queue.size()).toBe(8);
    for (const client of 'abcdefghij') expect(queue.waitingOf(client)).toBeLessThanOrEqual(1);
  });
});
