// @vitest-environment jsdom
/**
 * The page's session without the SDK (app/monitoring/page-session.ts) against the SDK's own: the
 * real browser SDK, continuing the page's session as adopted-session.ts makes it, takes the same
 * reports as the recorder hands it; the update it sends, or its silence, is what `sessionAfter`
 * must say, and every field of the hand-written session envelope must be in the SDK's.
 */
import { getClient, getIsolationScope } from '@sentry/browser';
import { type Envelope, makeSession, type SerializedSession } from '@sentry/core';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type PageSession, sessionAfter, sessionEnvelope } from '#app/monitoring/page-session';
import {
  ONERROR,
  ONUNHANDLEDREJECTION,
  type Report,
  SDK_METADATA,
} from '#app/monitoring/recorder/report';
import { sdkReceiver } from '#app/monitoring/sdk-loader';
import { startCapturingSdk, TEST_PUBLIC_CONFIG } from '#tests/support/capturing-sdk';

const config = TEST_PUBLIC_CONFIG;
const started = 1_795_000_000.5;
const ok: PageSession = { sid: 'c'.repeat(32), started, status: 'ok', errors: 0 };

let serial = 0;
/** A report with a message of its own (the SDK's dedupe drops an error seen just before). */
function report(kind: Report['kind'], handled?: boolean): Report {
  serial++;
  const id = serial.toString(16).padStart(32, '0');
  const base = { id, at: started + serial, url: 'http://127.0.0.1:3000/about' };
  if (kind === 'message') return { ...base, kind, message: `said ${serial}`, level: 'error' };
  const mechanism =
    kind === 'error'
      ? { type: ONERROR, handled: false }
      : kind === 'rejection'
        ? { type: ONUNHANDLEDREJECTION, handled: false }
        : { type: 'auto.function.react.error_boundary', handled: handled ?? true };
  const message = `failed ${serial}`;
  return {
    ...base,
    kind,
    name: 'Error',
    message,
    stack: `Error: ${message}\n    at f (http://127.0.0.1:3000/_build/assets/about-AbCdEf12.js:1:2)`,
    mechanism,
  };
}

let sent: Envelope[] = [];

beforeAll(() => {
  sent = startCapturingSdk(ok);
});
beforeEach(() => {
  sent.length = 0;
});

/**
 * The SDK's session as the page left it, as adopted-session.ts continues it; a session of its
 * own for each case (made, not started: starting one would end and send the last).
 */
function continueSession(page: PageSession): PageSession {
  const own = { ...page, sid: (++serial).toString(16).padStart(32, '0') };
  // With the browser's user agent, as `startSession` (adopted-session.ts) gives it.
  getIsolationScope().setSession(
    makeSession({ ...own, init: false, ignoreDuration: true, userAgent: navigator.userAgent }),
  );
  return own;
}

/** The updates of this session the SDK sends while it takes `reports`. */
async function sdkSessionUpdates(sid: string, reports: Report[]): Promise<SerializedSession[]> {
  for (const taken of reports) sdkReceiver.receive({ report: taken });
  await getClient()?.flush();
  return sent.flatMap(([, items]) =>
    items
      .filter(([header]) => header.type === 'session')
      .map(([, payload]) => payload as SerializedSession)
      .filter((session) => session.sid === sid),
  );
}

/**
 * Where the session stands once the reports are sent: the SDK's last update (it also sends one
 * that changes nothing, at the first event of any kind) or, without one, where it was.
 */
describe('sessionAfter: where the SDK leaves the session for the same reports', () => {
  it.each<[string, PageSession, () => Report[]]>([
    ['an uncaught error', ok, () => [report('error')]],
    ['an unhandled rejection', ok, () => [report('rejection')]],
    ['a handled exception', ok, () => [report('exception', true)]],
    ['an exception its mechanism calls unhandled', ok, () => [report('exception', false)]],
    ['a message (CSP)', ok, () => [report('message')]],
    ['a message after a handled error', { ...ok, errors: 1 }, () => [report('message')]],
    ['a second handled error', { ...ok, errors: 1 }, () => [report('exception', true)]],
    ['an uncaught error after a handled one', { ...ok, errors: 1 }, () => [report('error')]],
    ['anything once unhandled', { ...ok, status: 'unhandled', errors: 1 }, () => [report('error')]],
    ['a handled, then an uncaught error', ok, () => [report('exception'), report('error')]],
  ])('%s', async (_name, page, makeReports) => {
    const reports = makeReports();
    const own = continueSession(page);
    const updates = await sdkSessionUpdates(own.sid, reports);
    const sdk = updates.at(-1) ?? own;
    const ours = sessionAfter(own, reports) ?? own;
    expect({ status: ours.status, errors: ours.errors }).toEqual({
      status: sdk.status,
      errors: sdk.errors,
    });
  });
});

describe('sessionEnvelope, field by field against the SDK', () => {
  it('an update after an uncaught error', async () => {
    const reports = [report('error')];
    const own = continueSession(ok);
    const [sdk] = await sdkSessionUpdates(own.sid, reports);
    const next = sessionAfter(own, reports);
    if (!next || !sdk) throw new Error('no update');
    const [header, item, session] = sessionEnvelope(
      next,
      { ...config, userAgent: navigator.userAgent, sentAt: new Date(), sdk: SDK_METADATA },
      false,
    )
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(item).toEqual({ type: 'session' });
    expect(header.sdk).toEqual({ name: SDK_METADATA.name, version: SDK_METADATA.version });
    const { timestamp, ...fields } = session;
    expect(typeof timestamp).toBe('string');
    expect(sdk).toMatchObject(fields);
  });
});
