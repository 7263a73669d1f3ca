import { notFound, redirect } from '@tanstack/react-router';
import { describe, expect, it } from 'vitest';
import {
  earlyEnvelopes,
  isWorthSending,
  type PageSession,
  parseStack,
  sessionAfter,
  sessionEnvelope,
} from '#app/monitoring/early-envelope';
import type { EarlyReport } from '#app/monitoring/early-reports';

const context = {
  dsn: 'http://localinbox@localhost/1',
  environment: 'production',
  release: 'app@1.0.0',
  url: 'http://127.0.0.1:3000/about',
  userAgent: 'Chromium',
  sentAt: new Date('2026-11-23T10:00:00Z'),
  newEventId: () => 'f'.repeat(32),
};

const at = 1_795_000_000.25;

function errorWithStack(message: string, stack: string): Error {
  const error = new Error(message);
  error.stack = `Error: ${message}\n${stack}`;
  return error;
}

function uncaught(error: unknown, message = String(error)): EarlyReport {
  return {
    kind: 'error',
    event: { message, error, filename: '', lineno: 0, colno: 0 } as ErrorEvent,
    at,
  };
}

function parsed(envelope: string) {
  const [header, item, event] = envelope.split('\n').map((line) => JSON.parse(line));
  return { header, item, event };
}

describe('parseStack', () => {
  it.each([
    [
      'Chromium',
      '    at inner (http://h/_build/assets/about-AbCdEf12.js:1:20)\n    at http://h/_build/assets/vendor-react-AbCdEf12.js:3:4',
    ],
    [
      'Firefox',
      'inner@http://h/_build/assets/about-AbCdEf12.js:1:20\n@http://h/_build/assets/vendor-react-AbCdEf12.js:3:4',
    ],
  ])('%s: frames oldest first, in-app by chunk', (_browser, stack) => {
    expect(parseStack(stack)).toEqual([
      {
        function: '?',
        filename: 'http://h/_build/assets/vendor-react-AbCdEf12.js',
        lineno: 3,
        colno: 4,
        in_app: false,
      },
      {
        function: 'inner',
        filename: 'http://h/_build/assets/about-AbCdEf12.js',
        lineno: 1,
        colno: 20,
        in_app: true,
      },
    ]);
  });

  it('keeps the 50 frames nearest the throw', () => {
    const stack = Array.from({ length: 120 }, (_, i) => `    at f${i} (http://h/a.js:${i + 1}:1)`);
    const frames = parseStack(stack.join('\n'));
    expect(frames).toHaveLength(50);
    expect(frames.at(-1)?.function).toBe('f0');
  });
});

describe('earlyEnvelopes', () => {
  it('an uncaught error: the envelope the tunnel accepts, the event as the SDK would make it', () => {
    const error = errorWithStack(
      'boom',
      '    at thrower (http://h/_build/assets/about-AbCdEf12.js:1:2)',
    );
    const [envelope, ...more] = earlyEnvelopes([uncaught(error)], context);
    expect(more).toEqual([]);
    const { header, item, event } = parsed(envelope ?? '');
    expect(header).toMatchObject({ dsn: context.dsn, event_id: 'f'.repeat(32) });
    expect(item).toEqual({ type: 'event' });
    expect(event).toMatchObject({
      timestamp: at,
      level: 'error',
      environment: 'production',
      release: 'app@1.0.0',
      request: { url: context.url, headers: { 'User-Agent': 'Chromium' } },
      exception: {
        values: [
          {
            type: 'Error',
            value: 'boom',
            mechanism: { type: 'auto.browser.global_handlers.onerror', handled: false },
            stacktrace: { frames: [{ function: 'thrower', lineno: 1, colno: 2, in_app: true }] },
          },
        ],
      },
    });
  });

  it('a caught error and a message keep the ids already handed out', () => {
    const envelopes = earlyEnvelopes(
      [
        {
          kind: 'exception',
          error: new Error('caught'),
          mechanism: { type: 'auto.function.react.error_boundary', handled: true },
          eventId: 'a'.repeat(32),
          at,
        },
        {
          kind: 'message',
          message: 'Content-Security-Policy: script-src-elem blocked inline',
          context: { level: 'warning', tags: { csp_directive: 'script-src-elem' } },
          eventId: 'b'.repeat(32),
          at,
        },
      ],
      context,
    ).map(parsed);
    expect(envelopes.map(({ header }) => header.event_id)).toEqual([
      'a'.repeat(32),
      'b'.repeat(32),
    ]);
    expect(envelopes[1]?.event).toMatchObject({
      level: 'warning',
      message: 'Content-Security-Policy: script-src-elem blocked inline',
      tags: { csp_directive: 'script-src-elem' },
    });
  });

  it.each([
    ['a ResizeObserver notice', uncaught('ResizeObserver loop limit exceeded')],
    ['an opaque "Script error."', uncaught(undefined, 'Script error.')],
    [
      'an error thrown in an extension',
      uncaught(errorWithStack('ext', '    at x (chrome-extension://abc/content.js:1:1)')),
    ],
    ['a router redirect', uncaught(redirect({ to: '/' }))],
    ['a router notFound', uncaught(notFound())],
  ])('%s is noise, as the SDK filters it', (_name, report) => {
    expect(earlyEnvelopes([report], context)).toEqual([]);
  });

  it('without a stack, the place the browser names', () => {
    const report: EarlyReport = {
      kind: 'error',
      event: {
        message: 'odd',
        error: 'odd',
        filename: 'http://h/x.js',
        lineno: 7,
        colno: 3,
      } as ErrorEvent,
      at,
    };
    const { event } = parsed(earlyEnvelopes([report], context)[0] ?? '');
    expect(event.exception.values[0].stacktrace.frames).toEqual([
      { function: '?', filename: 'http://h/x.js', lineno: 7, colno: 3, in_app: false },
    ]);
  });
});

describe('isWorthSending: whether a report makes the page load the SDK', () => {
  it.each<[string, EarlyReport, boolean]>([
    ['an uncaught error', uncaught(new Error('boom')), true],
    [
      'a ResizeObserver loop notice',
      uncaught('ResizeObserver loop completed with undelivered notifications.'),
      false,
    ],
    ['a bare "Script error."', uncaught(undefined, 'Script error.'), false],
    [
      "an extension's error",
      uncaught(errorWithStack('ext', '    at x (chrome-extension://abc/content.js:1:1)')),
      false,
    ],
    ["the router's redirect", uncaught(redirect({ to: '/' })), false],
    [
      'a CSP violation message',
      {
        kind: 'message',
        message: 'CSP violation',
        context: { level: 'warning' },
        eventId: 'e'.repeat(32),
        at,
      },
      true,
    ],
  ])('%s', (_name, report, worth) => {
    expect(isWorthSending(report)).toBe(worth);
  });
});

describe('sessionEnvelope', () => {
  it("starts the page's session as the SDK would: init, ok, no errors, with release and browser", () => {
    const session = {
      sid: 'a'.repeat(32),
      started: 1_795_000_000.5,
      status: 'ok' as const,
      errors: 0,
    };
    const { header, item, event } = parsed(sessionEnvelope(session, context));
    expect(header).toEqual({
      sent_at: '2026-11-23T10:00:00.000Z',
      dsn: context.dsn,
      sdk: expect.objectContaining({ name: 'sentry.javascript.react' }),
    });
    expect(item).toEqual({ type: 'session' });
    expect(event).toEqual({
      sid: session.sid,
      init: true,
      started: '2026-11-18T11:06:40.500Z',
      timestamp: '2026-11-23T10:00:00.000Z',
      status: 'ok',
      errors: 0,
      attrs: { release: 'app@1.0.0', environment: 'production', user_agent: 'Chromium' },
    });
  });
});

describe('sessionEnvelope, later', () => {
  it('updates the same session without init, with its status and errors as they stand', () => {
    const session = {
      sid: 'b'.repeat(32),
      started: 1_795_000_000,
      status: 'unhandled' as const,
      errors: 1,
    };
    const { event } = parsed(sessionEnvelope(session, context, false));
    expect(event).toMatchObject({ sid: session.sid, init: false, status: 'unhandled', errors: 1 });
  });
});

describe('sessionAfter: the update the SDK would send for what the page sends without it', () => {
  const ok: PageSession = { sid: 'c'.repeat(32), started: 1_795_000_000, status: 'ok', errors: 0 };
  const caught = (handled: boolean): EarlyReport => ({
    kind: 'exception',
    error: new Error('caught'),
    mechanism: { type: 'auto.function.react.error_boundary', handled },
    eventId: 'e'.repeat(32),
    at,
  });
  const rejection: EarlyReport = {
    kind: 'rejection',
    event: { reason: new Error('rejected') } as PromiseRejectionEvent,
    at,
  };
  const message = (level: 'info' | 'error'): EarlyReport => ({
    kind: 'message',
    message: 'said',
    context: { level },
    eventId: 'd'.repeat(32),
    at,
  });
  const noise = uncaught(
    undefined,
    'ResizeObserver loop completed with undelivered notifications.',
  );

  it.each<[string, PageSession, EarlyReport[], Pick<PageSession, 'status' | 'errors'> | undefined]>(
    [
      [
        'an uncaught error: unhandled',
        ok,
        [uncaught(new Error('boom'))],
        { status: 'unhandled', errors: 1 },
      ],
      ['an unhandled rejection: unhandled', ok, [rejection], { status: 'unhandled', errors: 1 }],
      ['a handled exception: errored, still ok', ok, [caught(true)], { status: 'ok', errors: 1 }],
      [
        'an exception the mechanism calls unhandled',
        ok,
        [caught(false)],
        { status: 'unhandled', errors: 1 },
      ],
      ['a message at error level: no error, no update', ok, [message('error')], undefined],
      ['noise: nothing', ok, [noise], undefined],
      ['nothing sent: nothing', ok, [], undefined],
      ['a second handled error: no update', { ...ok, errors: 1 }, [caught(true)], undefined],
      [
        'an uncaught error after a handled one',
        { ...ok, errors: 1 },
        [uncaught(new Error('boom'))],
        { status: 'unhandled', errors: 1 },
      ],
      [
        'anything once unhandled: no update',
        { ...ok, status: 'unhandled', errors: 1 },
        [uncaught(new Error('boom'))],
        undefined,
      ],
      [
        'a handled, then an uncaught error, at once',
        ok,
        [caught(true), uncaught(new Error('boom'))],
        { status: 'unhandled', errors: 1 },
      ],
    ],
  )('%s', (_name, session, reports, expected) => {
    const next = sessionAfter(session, reports);
    expect(next && { status: next.status, errors: next.errors }).toEqual(expected);
    if (next) expect(next.sid).toBe(session.sid);
  });
});
