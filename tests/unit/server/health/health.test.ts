import { expect, it } from 'vitest';
import { createHealthSignals, TROUBLE_LINGERS_MS } from '#app/server/health/health.server';

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
