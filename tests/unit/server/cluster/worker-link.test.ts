import { describe, expect, it } from 'vitest';
import {
  isServerHealthMessage,
  isWorkerHealthMessage,
  SERVER_HEALTH,
  type ServerHealthMessage,
  serverHealthOf,
  WORKER_HEALTH,
} from '#app/server/cluster/worker-link.server';
import { ownReasons } from '#app/server/health/health.server';

const view = (
  serving: number[],
  reasons: Record<string, string[]> = {},
  silent: number[] = [],
  starting = false,
): ServerHealthMessage => ({
  type: SERVER_HEALTH,
  workers: 3,
  startedAt: 0,
  starting,
  serving,
  silent,
  reasons,
});

describe('serverHealthOf', () => {
  it.each([
    {
      case: 'all serving, no trouble',
      own: [],
      view: view([1, 2, 3]),
      reasons: [],
      up: 3,
    },
    {
      case: 'its own trouble, as it is now, naming it',
      own: ['pages-shed: event loop lag 180 ms'],
      view: view([1, 2, 3], { 1: [] }),
      reasons: ['pages-shed: event loop lag 180 ms (worker 1)'],
      up: 3,
    },
    {
      case: "another's trouble, as last reported; its own stale report is not read",
      own: [],
      view: view([1, 2, 3], { 1: ['reports-not-stored: old'], 3: ['sentry-unreachable: 502'] }),
      reasons: ['sentry-unreachable: 502 (worker 3)'],
      up: 3,
    },
    {
      case: 'a worker not serving: its last report no longer holds, its absence does',
      own: [],
      view: view([1, 2], { 3: ['pages-shed: old'] }),
      reasons: ['workers-down: worker 3 is not serving (2 of 3 are)'],
      up: 2,
    },
    {
      case: 'two down',
      own: [],
      view: view([1]),
      reasons: ['workers-down: workers 2, 3 are not serving (1 of 3 are)'],
      up: 1,
    },
    {
      case: 'a worker listening but not heard from: stuck, said apart from one not serving',
      own: [],
      view: view([1, 2], {}, [3]),
      reasons: ['workers-down: worker 3 is not answering (2 of 3 are)'],
      up: 2,
    },
    {
      case: 'one down, one stuck',
      own: [],
      view: view([1], {}, [3]),
      reasons: [
        'workers-down: worker 2 is not serving (1 of 3 are)',
        'workers-down: worker 3 is not answering (1 of 3 are)',
      ],
      up: 1,
    },
    {
      case: 'the answering worker counts itself before the primary saw it listen',
      own: [],
      view: view([2, 3]),
      reasons: [],
      up: 3,
    },
    {
      case: 'no view yet: its own troubles only, nobody taken for down',
      own: ['reports-not-stored: EACCES'],
      view: undefined,
      reasons: ['reports-not-stored: EACCES (worker 1)'],
      up: 1,
    },
  ])('$case', ({ own, view, reasons, up }) => {
    const health = serverHealthOf({ worker: 1, reasons: own }, view, 3);
    expect(health.reasons).toEqual(reasons);
    expect(health.workers).toEqual({ up, of: 3 });
    expect(health.starting).toBe(false);
  });

  it.each([
    {
      case: 'the view says the server is starting: the others are warming up, not down',
      view: view([1], {}, [], true),
      startedWithServer: true,
      reasons: ['starting: 1 of 3 workers serving'],
      starting: true,
    },
    {
      case: 'the view is the judge: a worker started with the server, once it is up',
      view: view([1, 3]),
      startedWithServer: true,
      reasons: ['workers-down: worker 2 is not serving (2 of 3 are)'],
      starting: false,
    },
    {
      case: 'no view yet, started with the server: starting',
      view: undefined,
      startedWithServer: true,
      reasons: ['starting: 1 of 3 workers serving'],
      starting: true,
    },
    {
      case: 'no view yet, started again after the server was up: not starting',
      view: undefined,
      startedWithServer: false,
      reasons: [],
      starting: false,
    },
    {
      case: 'a stuck worker is said while starting too',
      view: view([1, 2], {}, [3], true),
      startedWithServer: true,
      reasons: [
        'starting: 2 of 3 workers serving',
        'workers-down: worker 3 is not answering (2 of 3 are)',
      ],
      starting: true,
    },
  ])('$case', ({ view, startedWithServer, reasons, starting }) => {
    const health = serverHealthOf({ worker: 1, reasons: [], startedWithServer }, view, 3);
    expect(health.reasons).toEqual(reasons);
    expect(health.starting).toBe(starting);
  });
});

describe('the messages', () => {
  it.each([
    [{ type: WORKER_HEALTH, reasons: ['a: b'] }, true],
    [{ type: WORKER_HEALTH, reasons: [1] }, false],
    [{ type: WORKER_HEALTH }, false],
    [{ type: 'other', reasons: [] }, false],
    [null, false],
    ['text', false],
  ])('a worker report %j is one: %s', (message, ok) => {
    expect(isWorkerHealthMessage(message)).toBe(ok);
  });

  it.each([
    [view([1, 2]), true],
    [{ ...view([1]), serving: ['1'] }, false],
    [{ ...view([1]), silent: undefined }, false],
    [{ ...view([1]), startedAt: '0' }, false],
    [{ ...view([1]), starting: undefined }, false],
    [{ ...view([1]), reasons: { 1: 'x' } }, false],
    [{ ...view([1]), type: WORKER_HEALTH }, false],
  ])('a server view %j is one: %s', (message, ok) => {
    expect(isServerHealthMessage(message)).toBe(ok);
  });
});

describe('ownReasons', () => {
  it.each([
    [[], false, []],
    [[], true, ['pages-shed: event loop lag 143 ms']], // the monitor sheds before any page is
    [['pages-shed: 503 GET /'], true, ['pages-shed: 503 GET /']],
    [
      ['reports-not-stored: EROFS'],
      true,
      ['pages-shed: event loop lag 143 ms', 'reports-not-stored: EROFS'],
    ],
  ])('troubles %j, shedding %s → %j', (troubles, shedding, reasons) => {
    expect(ownReasons({ troubles, shedding, lagMs: 142.6 })).toEqual(reasons);
  });
});
