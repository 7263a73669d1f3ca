import { describe, expect, it } from 'vitest';
import { eventDetailOf, storedEventOf } from '#app/server/inbox/inbox-event';
import { errorEvent } from '#tests/fixtures/inbox-envelopes';

const ID = 'f'.repeat(32);
const detailOf = (event: Record<string, unknown>) => eventDetailOf(event, ID);

describe('eventDetailOf, a stored event as the issue page shows it', () => {
  it('gives the facts, the stack most recent call first, breadcrumbs and tags', () => {
    const detail = detailOf(
      errorEvent({
        type: 'TypeError',
        message: 'x is not a function',
        url: 'http://localhost:3000/page',
        environment: 'staging',
        release: 'app@2',
        digest: 'd1g3st',
        timestamp: 1_700_000_000,
      }),
    );
    expect(detail).toMatchObject({
      eventId: ID,
      timestamp: '2023-11-14T22:13:20.000Z',
      level: 'error',
      type: 'TypeError',
      message: 'x is not a function',
      url: 'http://localhost:3000/page',
      environment: 'staging',
      release: 'app@2',
      digest: 'd1g3st',
    });
    expect(detail.exceptions).toEqual([
      {
        type: 'TypeError',
        value: 'x is not a function',
        frames: [
          {
            filename: 'http://localhost:3000/_build/assets/example-page.js',
            function: 'handleThrowClick',
            lineno: 42,
            colno: 13,
            inApp: true,
          },
          {
            filename: 'http://localhost:3000/_build/assets/vendor.js',
            function: 'callCallback',
            lineno: 10,
            colno: 5,
            inApp: false,
          },
        ],
      },
    ]);
    expect(detail.breadcrumbs[0]).toEqual({
      timestamp: '2025-11-22T01:59:59.000Z',
      category: 'ui.click',
      message: 'button#throw-client',
    });
    // Derived as Sentry derives them, then the event's own (inbox-event-tags.test.ts has the rules).
    expect(detail.tags).toEqual([
      ['url', '/page'],
      ['release', 'app@2'],
      ['environment', 'staging'],
      ['level', 'error'],
      ['runtime', 'browser'],
      ['digest', 'd1g3st'],
    ]);
  });

  it.each([
    [
      'logentry formatted with its params',
      { logentry: { message: 'User %s failed', params: ['ann'], formatted: 'User ann failed' } },
      'User ann failed',
    ],
    [
      'a plain message over the logentry template',
      { message: 'plain', logentry: { message: 'User %s failed' } },
      'plain',
    ],
    ['a message object', { message: { formatted: 'formatted text' } }, 'formatted text'],
    [
      'the template when nothing else says',
      { logentry: { message: 'User %s failed', params: ['x'] } },
      'User %s failed',
    ],
  ])('reads a message event: %s', (_, event, message) => {
    expect(detailOf(event)).toMatchObject({ type: '', message });
  });

  it('shows the crashed thread’s stack for an exception that has none', () => {
    const detail = detailOf({
      exception: { values: [{ type: 'ValueError', value: 'bad', thread_id: 2 }] },
      threads: {
        values: [
          { id: 1, name: 'main', stacktrace: { frames: [{ function: 'idle' }] } },
          {
            id: 2,
            name: 'worker',
            crashed: true,
            stacktrace: { frames: [{ function: 'a' }, { function: 'b' }] },
          },
        ],
      },
    });
    expect(detail.exceptions).toEqual([
      {
        type: 'ValueError',
        value: 'bad',
        thread: 'worker (crashed)',
        frames: [
          { function: 'b', inApp: false },
          { function: 'a', inApp: false },
        ],
      },
    ]);
  });

  it('shows the current thread’s stack for a message event', () => {
    const detail = detailOf({
      message: 'hello',
      threads: {
        values: [{ id: 7, current: true, stacktrace: { frames: [{ function: 'log' }] } }],
      },
    });
    expect(detail.exceptions).toEqual([
      {
        type: '',
        value: 'hello',
        thread: '7 (current)',
        frames: [{ function: 'log', inApp: false }],
      },
    ]);
  });

  it('keeps an exception’s own stack over any thread’s, and no stack at all when none has one', () => {
    const own = detailOf({
      exception: {
        values: [{ type: 'E', value: 'v', stacktrace: { frames: [{ function: 'own' }] } }],
      },
      threads: {
        values: [{ id: 1, crashed: true, stacktrace: { frames: [{ function: 'thread' }] } }],
      },
    });
    expect(own.exceptions[0]?.frames.map((frame) => frame.function)).toEqual(['own']);
    expect(own.exceptions[0]?.thread).toBeUndefined();
    expect(detailOf({ message: 'm', threads: { values: [{ id: 1 }] } }).exceptions).toEqual([]);
  });

  it('carries the source lines a server SDK sent with a frame, bounded', () => {
    const detail = detailOf({
      exception: {
        values: [
          {
            type: 'ZeroDivisionError',
            value: 'division by zero',
            stacktrace: {
              frames: [
                {
                  filename: 'app/views.py',
                  function: 'divide',
                  lineno: 12,
                  pre_context: ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
                  context_line: '    return 1 / 0',
                  post_context: ['', 'x'.repeat(1000), 7],
                  in_app: true,
                },
              ],
            },
          },
        ],
      },
    });
    expect(detail.exceptions[0]?.frames[0]?.context).toEqual({
      pre: ['c', 'd', 'e', 'f', 'g'],
      line: '    return 1 / 0',
      post: ['', `${'x'.repeat(240)}…`, ''],
    });
  });

  it('shows breadcrumb data as JSON text, in either list form', () => {
    const detail = detailOf({
      message: 'm',
      breadcrumbs: { values: [{ message: 'crumb', data: { a: 1 } }] },
    });
    expect(detail.breadcrumbs).toEqual([{ message: 'crumb', data: '{"a":1}' }]);
  });

  it('says whether the thrown exception was handled, and gives the trace id', () => {
    const event = errorEvent();
    const values = (event.exception as { values: Array<Record<string, unknown>> }).values;
    const unhandled = {
      ...event,
      exception: {
        values: values.map((value) => ({
          ...value,
          mechanism: { type: 'onerror', handled: false },
        })),
      },
      contexts: {
        trace: { trace_id: '0123456789abcdef0123456789abcdef', span_id: '0123456789abcdef' },
      },
    };
    expect(detailOf(unhandled)).toMatchObject({
      handled: false,
      traceId: '0123456789abcdef0123456789abcdef',
    });
    expect(detailOf(unhandled).tags).toContainEqual(['handled', 'no']);
    const plain = detailOf(event);
    expect('handled' in plain || 'traceId' in plain).toBe(false);
  });

  it('ignores a tag value that is not text rather than throwing', () => {
    const detail = detailOf({
      ...errorEvent(),
      tags: { digest: { toString: 1 }, ok: 'yes', n: 3 },
    });
    expect(detail.digest).toBeUndefined();
    expect(detail.tags.slice(-2)).toEqual([
      ['ok', 'yes'],
      ['n', '3'],
    ]);
    expect(detail.tags.map(([key]) => key)).not.toContain('digest');
  });

  it('clips label fields a payload could make huge', () => {
    const huge = 'y'.repeat(100_000);
    const detail = detailOf({
      ...errorEvent(),
      level: huge,
      environment: huge,
      tags: { digest: huge },
    });
    for (const field of ['level', 'environment', 'digest'] as const) {
      expect(detail[field]?.length).toBeLessThan(200);
    }
  });
});

describe('storedEventOf', () => {
  it('reads the payload as an event, and nothing else as one', () => {
    expect(storedEventOf('{"message":"m"}')).toEqual({ message: 'm' });
    expect(storedEventOf('[1]')).toBeUndefined();
    expect(() => storedEventOf('{')).toThrow();
  });
});
