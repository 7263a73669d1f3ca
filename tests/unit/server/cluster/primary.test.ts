import { expect, it } from 'vitest';
import {
  createWaitingConnections,
  FIRST_RESTART_DELAY_MS,
  MAX_RESTART_DELAY_MS,
  restartDelayMs,
  STABLE_AFTER_MS,
  waitingLimit,
} from '#app/server/cluster/primary.server';

it.each([
  // the delay before the stopped worker's start, how long it lived → the next delay
  [undefined, 5, FIRST_RESTART_DELAY_MS], // a worker of the first start: again at once
  [FIRST_RESTART_DELAY_MS, 50, 200], // stopped soon after its restart: twice as long
  [6_400, 1_000, 12_800],
  [20_000, 1_000, MAX_RESTART_DELAY_MS], // a crash loop: one start every 30 s
  [MAX_RESTART_DELAY_MS, 1_000, MAX_RESTART_DELAY_MS],
  [MAX_RESTART_DELAY_MS, STABLE_AFTER_MS, FIRST_RESTART_DELAY_MS], // it had run a while: at once
])('after a delay of %j and %i ms of life, waits %i ms', (previous, lived, next) => {
  expect(restartDelayMs(previous, lived)).toBe(next);
});

/**
 * Connections named `<client><n>` arrive in order (`arrivals`, space-separated); then the line
 * is emptied. What it handed over and what it closed, in order.
 */
function run(maxWaiting: number, arrivals: string) {
  const line = createWaitingConnections<string>(maxWaiting);
  const closed: string[] = [];
  for (const id of arrivals.split(' ').filter(Boolean)) {
    const victim = line.arrive(id, id.replace(/\d+$/, ''));
    if (victim !== undefined) closed.push(victim);
  }
  const handed: string[] = [];
  for (let id = line.next(); id !== undefined; id = line.next()) handed.push(id);
  return { handed: handed.join(' '), closed: closed.join(' ') };
}

it.each([
  // arrivals → the order they are handed over in
  ['', ''],
  ['a1 a2 a3', 'a1 a2 a3'], // one client: first come, first served
  // A newcomer's one connection waits for one of each other client's, not for all of them.
  ['a1 a2 a3 a4 b1 n1', 'a1 b1 n1 a2 a3 a4'],
  ['a1 b1 a2 b2 c1', 'a1 b1 c1 a2 b2'],
])('hands %j over as %j', (arrivals, handed) => {
  expect(run(100, arrivals)).toEqual({ handed, closed: '' });
});

it.each([
  // the bound, arrivals → what is handed over, what is closed
  // Full: the client with the most waiting gives up its oldest for a newcomer...
  [3, 'a1 a2 a3 n1', 'a2 n1 a3', 'a1'],
  [4, 'a1 a2 b1 a3 n1', 'a2 b1 n1 a3', 'a1'],
  // ...and a connection of that client itself is closed on arrival.
  [3, 'a1 a2 a3 a4', 'a1 a2 a3', 'a4'],
  // Clients as big as each other: the arrival's own is closed, none of another's.
  [2, 'a1 b1 a2', 'a1 b1', 'a2'],
  // A client whose last one was closed keeps its place in the turns for its next.
  [2, 'a1 b1 c1 a2', 'a2 c1', 'a1 b1'],
])('within %i, hands %j over as %j, closing %j', (bound, arrivals, handed, closed) => {
  expect(run(bound, arrivals)).toEqual({ handed, closed });
});

it('counts what waits, and gives every waiting connection up at once', () => {
  const line = createWaitingConnections<number>(10);
  for (let id = 0; id < 5; id += 1) line.arrive(id, id % 2 === 0 ? 'even' : 'odd');
  expect(line.next()).toBe(0);
  expect(line.size()).toBe(4);
  expect(line.takeAll()).toEqual([1, 2, 3, 4]);
  expect([line.size(), line.next()]).toEqual([0, undefined]);
});

it('keeps the order over a long line', () => {
  const line = createWaitingConnections<number>(10_000);
  for (let id = 0; id < 5_000; id += 1) line.arrive(id, 'a');
  const handed: number[] = [];
  for (let id = line.next(); id !== undefined; id = line.next()) handed.push(id);
  expect(handed).toEqual(Array.from({ length: 5_000 }, (_, id) => id));
});

it.each([
  // the primary's descriptor limit, workers → connections that may wait in it
  [undefined, 2, 10_000], // unknown: the server's cap
  [1_024, 2, 952], // below the limit, with room for the primary's own
  [20_000, 2, 10_000],
  [100, 2, 64], // never none
])('with a descriptor limit of %j and %i workers, %i may wait', (limit, workers, waiting) => {
  expect(waitingLimit(limit, workers)).toBe(waiting);
});
