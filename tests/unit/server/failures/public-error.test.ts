import { describe, expect, it } from 'vitest';
import {
  computeDigest,
  fingerprintOf,
  isNodeRuntimeFrame,
} from '#app/server/failures/public-error.server';

function thrownAt(message: string): Error {
  return new Error(message);
}

describe('computeDigest', () => {
  it('is short lowercase hex', () => {
    expect(computeDigest(new Error('x'))).toMatch(/^[0-9a-f]{10}$/);
  });

  it('is the same for the same error thrown from the same place (repeats group)', () => {
    const digests = [1, 2, 3].map(() => computeDigest(thrownAt('same')));
    expect(new Set(digests).size).toBe(1);
  });

  it.each([
    ['another message', thrownAt('same'), thrownAt('other')],
    ['another type', new TypeError('same'), new RangeError('same')],
    ['another place', thrownAt('same'), new Error('same')],
  ])('differs for %s', (_name, a, b) => {
    expect(computeDigest(a)).not.toBe(computeDigest(b));
  });

  it('does not contain the message', () => {
    const digest = computeDigest(new Error('abcdef'));
    expect(digest).not.toContain('abcdef');
  });

  it.each([
    ['a string', 'boom'],
    ['null', null],
    ['undefined', undefined],
    ['an object', { a: 1 }],
  ])('never throws for %s', (_name, value) => {
    expect(computeDigest(value)).toMatch(/^[0-9a-f]{10}$/);
  });

  it('hashes name, message and only the top stack frames, not the message line', () => {
    const error = new Error('m');
    error.stack = [
      'Error: m',
      ...Array.from({ length: 9 }, (_, i) => `    at f${i} (x.js:${i}:1)`),
    ].join('\n');
    expect(fingerprintOf(error).split('\n')).toEqual([
      'Error',
      'm',
      'at f0 (x.js:0:1)',
      'at f1 (x.js:1:1)',
      'at f2 (x.js:2:1)',
      'at f3 (x.js:3:1)',
      'at f4 (x.js:4:1)',
    ]);
  });

  it('leaves out the frame that says what drained the microtask queue (the first call has none)', () => {
    // The same server function failing on the first call after a start and on a later one.
    const appFrames = [
      'Error: failed',
      '    at Object.serverFn (/srv/app/server/example.functions.ts:21:11)',
      '    at server (file:///srv/.output/server/node_modules/createServerFn.js:335:77)',
      '    at applyMiddleware (file:///srv/.output/server/node_modules/createServerFn.js:260:10)',
      '    at next (file:///srv/.output/server/node_modules/createServerFn.js:124:14)',
    ];
    const first = Object.assign(new Error('failed'), { stack: appFrames.join('\n') });
    const later = Object.assign(new Error('failed'), {
      stack: [
        ...appFrames,
        '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      ].join('\n'),
    });
    expect(fingerprintOf(later)).toBe(fingerprintOf(first));
    expect(computeDigest(later)).toBe(computeDigest(first));
  });

  it('counts the top frames after Node’s own are left out', () => {
    const error = new Error('m');
    error.stack = [
      'Error: m',
      '    at f0 (x.js:0:1)',
      '    at Server.emit (node:events:517:28)',
      ...Array.from({ length: 5 }, (_, i) => `    at f${i + 1} (x.js:${i + 1}:1)`),
    ].join('\n');
    expect(fingerprintOf(error).split('\n').slice(2)).toEqual([
      'at f0 (x.js:0:1)',
      'at f1 (x.js:1:1)',
      'at f2 (x.js:2:1)',
      'at f3 (x.js:3:1)',
      'at f4 (x.js:4:1)',
    ]);
  });
});

describe('isNodeRuntimeFrame', () => {
  it.each([
    [
      'the tick queue',
      'at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      true,
    ],
    ['a timer', 'at listOnTimeout (node:internal/timers:581:17)', true],
    ['a public Node module', 'at Server.emit (node:events:517:28)', true],
    ['a Node frame with no name', 'at node:internal/main/run_main_module:28:49', true],
    [
      'our source, mapped',
      'at Object.serverFn (/srv/app/server/example.functions.ts:21:11)',
      false,
    ],
    [
      'a dependency',
      'at runLoader (file:///srv/.output/server/node_modules/router.js:1111:115)',
      false,
    ],
    [
      'an anonymous function of ours',
      'at file:///srv/.output/server/chunks/nitro/nitro.mjs:10:3',
      false,
    ],
    ['a V8 builtin on our path', 'at Array.forEach (<anonymous>)', false],
    ['an awaited Promise.all', 'at async Promise.all (index 0)', false],
    ['a directory whose name has "node:" in it', 'at f (/srv/node:app/x.js:1:1)', false],
  ])('%s: %s → %s', (_name, frame, expected) => {
    expect(isNodeRuntimeFrame(frame)).toBe(expected);
  });
});
