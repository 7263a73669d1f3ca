/**
 * Tests of record-failure, one section per part of the module, in its order.
 */
import { describe, expect, it, vi } from 'vitest';
import { SERVER_FAILURE_MESSAGE } from '#app/monitoring/failure-view';
import {
  computeDigest,
  failureLogLine,
  fingerprintOf,
  isNodeRuntimeFrame,
  recordFailure,
  sanitiseFailure,
} from '#app/server/failures/record-failure.server';

describe('sanitiseFailure', () => {
  it('passes on a public error read back from a server function under its own digest, and never records it again', () => {
    // What a loader's call gets back during SSR: the serialised PublicServerError, class lost.
    const relayed = Object.assign(new Error(SERVER_FAILURE_MESSAGE), {
      name: 'ServerError',
      digest: '4e049ea182',
    });
    const errorLog = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const publicError = sanitiseFailure(relayed, 'loader');
      expect(publicError.digest).toBe('4e049ea182');
      recordFailure(publicError, { route: '/errors/', method: 'GET', url: '/errors' });
      expect(errorLog).not.toHaveBeenCalled();
    } finally {
      errorLog.mockRestore();
    }
  });

  it('gives any other error a digest of its own', () => {
    const lookalike = Object.assign(new Error('Application error'), { digest: 'not-a-digest' });
    expect(sanitiseFailure(lookalike, 'loader').digest).toMatch(/^[0-9a-f]{10}$/);
    expect(sanitiseFailure(lookalike, 'loader').digest).not.toBe('not-a-digest');
  });
});

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

const context = { phase: 'loader', route: '/r', method: 'GET', url: '/r?q=1' } as const;
const now = new Date('2026-01-02T03:04:05.000Z');

describe('failureLogLine', () => {
  it('is one line of JSON with level, digest, route, method, message and stack', () => {
    const error = new Error('boom');
    const line = failureLogLine(error, 'abc', context, now);
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      level: 'error',
      time: '2026-01-02T03:04:05.000Z',
      digest: 'abc',
      phase: 'loader',
      route: '/r',
      method: 'GET',
      url: '/r?q=1',
      name: 'Error',
      message: 'boom',
      stack: error.stack,
    });
  });

  it('names the worker that met it when the server runs several', () => {
    const record = JSON.parse(
      failureLogLine(new Error('boom'), 'abc', context, now, { worker: 2 }),
    );
    expect(record).toMatchObject({ digest: 'abc', worker: 2, route: '/r' });
    expect(JSON.parse(failureLogLine(new Error('boom'), 'abc', context, now))).not.toHaveProperty(
      'worker',
    );
  });

  it('carries the event id and the inbox link, and never the request itself', () => {
    const incoming = { url: 'http://a.test/r?q=1', headers: new Headers({ cookie: 'sid=s3cret' }) };
    const line = failureLogLine(new Error('boom'), 'abc', { ...context, incoming }, now, {
      eventId: '0123456789abcdef0123456789abcdef',
      inboxLink: 'https://a.test/errors/0123456789abcdef0123456789abcdef',
    });
    expect(JSON.parse(line)).toMatchObject({
      digest: 'abc',
      eventId: '0123456789abcdef0123456789abcdef',
      inboxLink: 'https://a.test/errors/0123456789abcdef0123456789abcdef',
    });
    expect(line).not.toContain('s3cret');
    expect(line).not.toContain('incoming');
  });

  it('logs the stack with the original names it is given', () => {
    const error = new Error('boom');
    error.stack = 'Error: boom\n    at y (/app/ErrorFallback.tsx:3:9)';
    const record = JSON.parse(
      failureLogLine(error, 'abc', context, now, {
        originalNames: (stack) => stack.replace(' y ', ' RenderBomb '),
      }),
    );
    expect(record.stack).toBe('Error: boom\n    at RenderBomb (/app/ErrorFallback.tsx:3:9)');
  });

  it.each([
    ['a string', 'boom', 'string', 'boom'],
    ['null', null, 'object', 'null'],
    ['an object', { a: 1 }, 'object', '[object Object]'],
  ])('describes %s', (_name, thrown, name, message) => {
    const record = JSON.parse(failureLogLine(thrown, 'd', context, now));
    expect(record).toMatchObject({ name, message, digest: 'd', level: 'error' });
  });
});
