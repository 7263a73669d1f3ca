import { describe, expect, it } from 'vitest';
import {
  createHealthSignals,
  healthReport,
  TROUBLE_LINGERS_MS,
} from '#app/server/health/health.server';

function harness() {
  let clock = 1_000_000;
  const started: string[] = [];
  const signals = createHealthSignals({
    now: () => clock,
    onStart: (trouble, detail) => started.push(`${trouble}: ${detail}`),
  });
  return { signals, started, tick: (ms: number) => (clock += ms) };
}

it('has no reasons while nothing happened', () => {
  expect(harness().signals.reasons()).toEqual([]);
});

it('reports a trouble with its latest detail, and starts an episode once however often it recurs', () => {
  const { signals, started, tick } = harness();
  signals.note('pages-shed', '8 renders running');
  tick(1000);
  signals.note('pages-shed', 'queue full');
  expect(signals.reasons()).toEqual(['pages-shed: queue full']);
  expect(started).toEqual(['pages-shed: 8 renders running']);
});

it.each(['pages-shed', 'inbox-at-cap'] as const)(
  'lets %s, a trouble with no end of its own, lapse, and a later one start a new episode',
  (trouble) => {
    const { signals, started, tick } = harness();
    signals.note(trouble, 'now');
    tick(TROUBLE_LINGERS_MS - 1);
    expect(signals.reasons()).toHaveLength(1);
    tick(1);
    expect(signals.reasons()).toEqual([]);
    signals.note(trouble, 'again');
    expect(started).toEqual([`${trouble}: now`, `${trouble}: again`]);
  },
);

it('ends a trouble when it is cleared, and lists several in a fixed order', () => {
  const { signals } = harness();
  signals.note('sentry-unreachable', 'ECONNREFUSED');
  signals.note('reports-not-stored', 'EACCES');
  signals.note('pages-shed', 'queue full');
  expect(signals.reasons()).toEqual([
    'pages-shed: queue full',
    'reports-not-stored: EACCES',
    'sentry-unreachable: ECONNREFUSED',
  ]);
  signals.clear('reports-not-stored');
  expect(signals.reasons()).toEqual(['pages-shed: queue full', 'sentry-unreachable: ECONNREFUSED']);
});

it('keeps a store or Sentry trouble until it is cleared, however long that takes', () => {
  const { signals, started, tick } = harness();
  signals.note('reports-not-stored', 'EACCES');
  tick(TROUBLE_LINGERS_MS * 100);
  expect(signals.reasons()).toEqual(['reports-not-stored: EACCES']);
  signals.note('reports-not-stored', 'EACCES');
  expect(started).toEqual(['reports-not-stored: EACCES']);
  signals.clear('reports-not-stored');
  signals.note('reports-not-stored', 'ENOSPC');
  expect(started).toEqual(['reports-not-stored: EACCES', 'reports-not-stored: ENOSPC']);
});

describe('healthReport: the status and its HTTP status', () => {
  it.each([
    // shuttingDown, starting, reasons → status, HTTP status
    [false, false, [], 'ok', 200],
    [false, false, ['pages-shed: event loop lag 180 ms'], 'degraded', 200],
    // A load balancer waits for the whole server: not a status to send visitors on.
    [false, true, ['starting: 1 of 2 workers serving'], 'starting', 503],
    [
      false,
      true,
      ['starting: 1 of 2 workers serving', 'reports-not-stored: EROFS'],
      'starting',
      503,
    ],
    [true, true, ['starting: 1 of 2 workers serving'], 'shutting-down', 503],
    [true, false, [], 'shutting-down', 503],
  ] as const)(
    'shutting down %s, starting %s, reasons %j → %s (%d)',
    (shuttingDown, starting, reasons, status, httpStatus) => {
      const answer = healthReport({
        version: '1.0.0',
        uptimeSeconds: 1.5,
        monitoring: 'local-inbox',
        lagMs: 3.14,
        shuttingDown,
        starting,
        reasons: [...reasons],
        workers: { up: 1, of: 2 },
      });
      expect(answer.httpStatus).toBe(httpStatus);
      expect(answer.report.status).toBe(status);
      expect(answer.report.reasons).toEqual(reasons);
    },
  );
});
