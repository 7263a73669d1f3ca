// @vitest-environment jsdom
/**
 * The envelope the recorder writes by hand (app/monitoring/recorder/minimal-envelope.ts) against
 * the SDK's own, for the same report: the real browser SDK, started as the page starts it
 * (`startBrowserClient` and `browserOptions`), takes the report as it does when it loads
 * (sdk-loader.ts), and every field the hand-written envelope carries must be in the SDK's, with the
 * same value. An SDK upgrade that changes the format fails here.
 */
import { getClient } from '@sentry/browser';
import type { Envelope, Event } from '@sentry/core';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { minimalEnvelope, parseStack } from '#app/monitoring/recorder/minimal-envelope';
import {
  ASSET_ERROR,
  CHUNK_LOAD_ERROR,
  ONERROR,
  ONUNHANDLEDREJECTION,
  type Report,
  SDK_METADATA,
} from '#app/monitoring/recorder/recorder';
import { sdkReceiver } from '#app/monitoring/sdk-loader';
import { startCapturingSdk, TEST_PUBLIC_CONFIG } from '#tests/support/capturing-sdk';

const config = TEST_PUBLIC_CONFIG;

const ORIGIN = 'http://127.0.0.1:3000';
const STACK = [
  'TypeError: x is not a function',
  `    at throwsInHandler (${ORIGIN}/_build/assets/about-AbCdEf12.js:1:200)`,
  `    at onClick (${ORIGIN}/_build/assets/app-AbCdEf12.js:3:40)`,
  `    at ${ORIGIN}/_build/assets/vendor-react-AbCdEf12.js:10:5`,
].join('\n');

const base = { at: 1_795_000_000.25, url: `${ORIGIN}/about` };
// Each its own message: the SDK's dedupe integration drops the same error twice in a row.
const reports: Array<[string, Report]> = [
  [
    'an uncaught error',
    {
      ...base,
      id: 'a'.repeat(32),
      kind: 'error',
      name: 'TypeError',
      message: 'x is not a function',
      stack: STACK,
      filename: `${ORIGIN}/_build/assets/about-AbCdEf12.js`,
      lineno: 1,
      colno: 200,
      mechanism: { type: ONERROR, handled: false },
    },
  ],
  [
    'an unhandled rejection',
    {
      ...base,
      id: 'b'.repeat(32),
      kind: 'rejection',
      name: 'TypeError',
      message: 'y is not a function',
      stack: STACK,
      mechanism: { type: ONUNHANDLEDREJECTION, handled: false },
    },
  ],
  [
    "an error the app's boundary caught",
    {
      ...base,
      id: 'c'.repeat(32),
      kind: 'exception',
      name: 'TypeError',
      message: 'z is not a function',
      stack: STACK,
      mechanism: { type: 'auto.function.react.error_boundary', handled: true },
    },
  ],
  [
    'a script of ours that did not load',
    {
      ...base,
      id: 'd'.repeat(32),
      kind: 'asset',
      name: CHUNK_LOAD_ERROR,
      message: `Loading chunk ${ORIGIN}/_build/assets/client-AbCdEf12.js failed.`,
      filename: `${ORIGIN}/_build/assets/client-AbCdEf12.js`,
      mechanism: { type: ASSET_ERROR, handled: false },
    },
  ],
  [
    'a CSP violation message',
    {
      ...base,
      id: 'e'.repeat(32),
      kind: 'message',
      message: 'Content-Security-Policy: script-src-elem blocked inline',
      level: 'warning',
      tags: { csp_directive: 'script-src-elem' },
      extra: { lineNumber: 3 },
    },
  ],
];

let sent: Envelope[] = [];

beforeAll(() => {
  sent = startCapturingSdk({
    sid: 'f'.repeat(32),
    started: base.at,
    status: 'ok',
    errors: 0,
  });
});
beforeEach(() => {
  sent.length = 0;
});

/** The SDK's envelope for a report, as it sends one taken from the recorder. */
async function sdkEnvelope(report: Report): Promise<[Record<string, unknown>, Event]> {
  sdkReceiver.receive({ report });
  await getClient()?.flush();
  for (const [header, items] of sent) {
    for (const [itemHeader, payload] of items) {
      if (itemHeader.type === 'event' && (payload as Event).event_id === report.id) {
        return [header, payload as Event];
      }
    }
  }
  throw new Error(`the SDK sent no event for ${report.kind}`);
}

/** Every leaf of a JSON value with its path: `exception.values.0.type` → 'TypeError'. */
function leaves(value: unknown, path = ''): Array<[string, unknown]> {
  if (typeof value !== 'object' || value === null) return [[path, value]];
  return Object.entries(value).flatMap(([key, inner]) =>
    leaves(inner, path ? `${path}.${key}` : key),
  );
}

function at(value: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((inner, key) => (inner as Record<string, unknown> | undefined)?.[key], value);
}

describe('the hand-written envelope, field by field against the SDK', () => {
  it.each(reports)('%s', async (_name, report) => {
    const [sdkHeader, sdkEvent] = await sdkEnvelope(report);
    const [header, item, event] = minimalEnvelope(report, {
      ...config,
      userAgent: navigator.userAgent,
      sentAt: new Date(),
      sdk: SDK_METADATA,
    })
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(item).toEqual({ type: 'event' });

    const { sent_at: sentAt, ...headerFields } = header;
    expect(typeof sentAt).toBe('string');
    for (const [path, value] of leaves(headerFields))
      expect(at(sdkHeader, path), path).toEqual(value);
    const fields = leaves(event);
    for (const [path, value] of fields) expect(at(sdkEvent, path), path).toEqual(value);
    // The fields that matter are among them.
    expect(fields.map(([path]) => path)).toEqual(
      expect.arrayContaining(['event_id', 'timestamp', 'level', 'release', 'request.url']),
    );
  });
});

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
