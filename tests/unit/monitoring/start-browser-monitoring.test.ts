/**
 * The page's monitoring: starting it, CSP reports, the page session.
 */

import { getClient, getIsolationScope } from '@sentry/browser';
import { type Envelope, makeSession, type SerializedSession } from '@sentry/core';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ONERROR,
  ONUNHANDLEDREJECTION,
  type Report,
  SDK_METADATA,
} from '#app/monitoring/recorder/recorder';
import { sdkReceiver } from '#app/monitoring/sdk-loader';
import {
  describeViolation,
  FIRST_RETRY_MS,
  loadUntilLoaded,
  MAX_CSP_REPORTS_PER_PAGE,
  MAX_RETRY_MS,
  type PageSession,
  pageSession,
  type RenderedRouter,
  type RootMatchState,
  reportCspViolations,
  routeContentFollowsShell,
  sdkRetryDelayMs,
  sessionAfter,
  sessionEnvelope,
  whenPageHydrated,
} from '#app/monitoring/start-browser-monitoring';
import { startCapturingSdk, TEST_PUBLIC_CONFIG } from '#tests/support/capturing-sdk';

/**
 * Tests of start-browser-monitoring, one section per part of the module, in its order.
 */
describe("sdkRetryDelayMs: the SDK offline transport's schedule", () => {
  it.each<[number, number]>([
    [1, 5_000],
    [2, 10_000],
    [3, 20_000],
    [10, 2_560_000],
    [11, 3_600_000],
    [50, 3_600_000],
  ])('after %i failures in a row: %i ms', (failures, delay) => {
    expect(sdkRetryDelayMs(failures)).toBe(delay);
  });

  it('starts at 5 s and never passes an hour', () => {
    expect(FIRST_RETRY_MS).toBe(5_000);
    expect(MAX_RETRY_MS).toBe(3_600_000);
  });
});

describe('loadUntilLoaded', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** A load that fails `failing` times, then succeeds; counts its calls. */
  function flakyLoad(failing: number) {
    const load = vi.fn(async () => {
      if (load.mock.calls.length <= failing) throw new Error('Failed to fetch');
    });
    return load;
  }

  it('loads once when the first load works; nothing runs meanwhile', async () => {
    const load = flakyLoad(0);
    const meanwhile = vi.fn();
    loadUntilLoaded(load, meanwhile, new EventTarget());
    await vi.runAllTimersAsync();
    expect(load).toHaveBeenCalledTimes(1);
    expect(meanwhile).not.toHaveBeenCalled();
  });

  it('without an online event, tries again on the schedule, and stops once loaded', async () => {
    const load = flakyLoad(2);
    const meanwhile = vi.fn();
    loadUntilLoaded(load, meanwhile, new EventTarget());
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(1);
    expect(meanwhile).toHaveBeenLastCalledWith(expect.any(Error), 5_000);

    await vi.advanceTimersByTimeAsync(4_999);
    expect(load).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(load).toHaveBeenCalledTimes(2);
    expect(meanwhile).toHaveBeenLastCalledWith(expect.any(Error), 10_000);

    await vi.advanceTimersByTimeAsync(10_000);
    expect(load).toHaveBeenCalledTimes(3);
    await vi.runAllTimersAsync();
    expect(load).toHaveBeenCalledTimes(3);
    expect(meanwhile).toHaveBeenCalledTimes(2);
  });

  it('an online event tries at once, and the timer it replaced does not try again', async () => {
    const browser = new EventTarget();
    const load = flakyLoad(1);
    loadUntilLoaded(load, () => {}, browser);
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(1);

    browser.dispatchEvent(new Event('online'));
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(2);
    await vi.runAllTimersAsync();
    browser.dispatchEvent(new Event('online'));
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('one try per failure: an online event after the timer fired does not add a second', async () => {
    const browser = new EventTarget();
    const load = flakyLoad(Number.POSITIVE_INFINITY);
    loadUntilLoaded(load, () => {}, browser);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(load).toHaveBeenCalledTimes(2);
    browser.dispatchEvent(new Event('online'));
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(3);
    // The third failure waits 20 s: nothing before.
    await vi.advanceTimersByTimeAsync(19_999);
    expect(load).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(load).toHaveBeenCalledTimes(4);
  });
});

function fakeRouter(matches: RootMatchState[], scrollRestoration = true) {
  const listeners = new Set<() => void>();
  const router: RenderedRouter & { render(): void; listeners: Set<() => void> } = {
    options: { scrollRestoration },
    state: { matches },
    listeners,
    subscribe(_event, listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    render() {
      for (const listener of [...listeners]) listener();
    },
  };
  return router;
}

const ok = { status: 'success' };

/** Resolves to whether the promise has settled once pending callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

describe('routeContentFollowsShell', () => {
  it.each([
    ['a route under the root', [ok, ok], true, true],
    [
      'a route whose loader failed (its error page is its content)',
      [ok, { status: 'error' }],
      true,
      true,
    ],
    ['a route that threw notFound()', [ok, { status: 'notFound' }], true, true],
    [
      'an unknown path: the root shows the not-found page',
      [{ ...ok, globalNotFound: true }],
      true,
      false,
    ],
    ['the root failed: its error page is the whole page', [{ status: 'error' }, ok], true, false],
    ['only the root matched', [ok], true, false],
    ['no scroll restoration: no onRendered to wait for', [ok, ok], false, false],
  ] as const)('%s -> %s', (_case, matches, scrollRestoration, follows) => {
    expect(routeContentFollowsShell(fakeRouter([...matches], scrollRestoration))).toBe(follows);
  });
});

describe('whenPageHydrated', () => {
  it('waits for the shell and then for the route content to render', async () => {
    const router = fakeRouter([ok, ok]);
    let commitShell = () => {};
    const hydrated = whenPageHydrated(
      router,
      new Promise<void>((resolve) => {
        commitShell = resolve;
      }),
    );
    commitShell();
    expect(await settled(hydrated)).toBe(false);
    router.render();
    expect(await settled(hydrated)).toBe(true);
    expect(router.listeners.size).toBe(0);
  });

  it('counts a route rendered in the same pass as the shell', async () => {
    const router = fakeRouter([ok, ok]);
    let commitShell = () => {};
    const hydrated = whenPageHydrated(
      router,
      new Promise<void>((resolve) => {
        commitShell = resolve;
      }),
    );
    router.render();
    expect(await settled(hydrated)).toBe(false);
    commitShell();
    expect(await settled(hydrated)).toBe(true);
  });

  it('is done with the shell when the shell is the whole page', async () => {
    const router = fakeRouter([{ ...ok, globalNotFound: true }]);
    expect(await settled(whenPageHydrated(router, Promise.resolve()))).toBe(true);
  });
});

const violation = (over: Partial<Parameters<typeof describeViolation>[0]> = {}) => ({
  effectiveDirective: 'script-src-elem',
  blockedURI: 'inline',
  sourceFile: 'http://localhost:3000/about',
  lineNumber: 1,
  disposition: 'enforce',
  ...over,
});

describe('describeViolation', () => {
  it.each([
    ['inline', 'Content-Security-Policy: script-src-elem blocked inline'],
    ['', 'Content-Security-Policy: script-src-elem blocked inline'],
    ['eval', 'Content-Security-Policy: script-src-elem blocked eval'],
    [
      'https://cdn.evil.test/x.js?k=secret',
      'Content-Security-Policy: script-src-elem blocked https://cdn.evil.test',
    ],
    ['data:text/javascript,alert(1)', 'Content-Security-Policy: script-src-elem blocked data:'],
  ])('blocked %j reads %j', (blockedURI, message) => {
    expect(describeViolation(violation({ blockedURI })).message).toBe(message);
  });

  it('tags the directive and keeps the details, clipped', () => {
    const described = describeViolation(
      violation({ blockedURI: `https://x.test/${'a'.repeat(900)}` }),
    );
    expect(described.tags).toEqual({
      csp_directive: 'script-src-elem',
      csp_disposition: 'enforce',
    });
    expect(String(described.extra.blockedURI).length).toBe(500);
  });
});

describe('reportCspViolations', () => {
  it(`reports at most ${MAX_CSP_REPORTS_PER_PAGE} per page`, () => {
    const target = new EventTarget();
    const reported: string[] = [];
    const stop = reportCspViolations(target as unknown as Document, (d) =>
      reported.push(d.message),
    );
    for (let i = 0; i < 10; i++) {
      target.dispatchEvent(
        Object.assign(
          new Event('securitypolicyviolation'),
          violation({ blockedURI: `https://a${i}.test/` }),
        ),
      );
    }
    expect(reported).toEqual(
      ['https://a0.test', 'https://a1.test', 'https://a2.test'].map(
        (o) => `Content-Security-Policy: script-src-elem blocked ${o}`,
      ),
    );
    stop();
  });

  it('stops listening when asked', () => {
    const target = new EventTarget();
    const reported: string[] = [];
    const stop = reportCspViolations(target as unknown as Document, (d) =>
      reported.push(d.message),
    );
    stop();
    target.dispatchEvent(Object.assign(new Event('securitypolicyviolation'), violation()));
    expect(reported).toEqual([]);
  });
});

describe('the page session', () => {
  // @vitest-environment jsdom
  /**
   * The page's session without the SDK (app/monitoring/start-browser-monitoring.ts) against the SDK's own: the
   * real browser SDK, continuing the page's session as sdk-loader.ts makes it, takes the same
   * reports as the recorder hands it; the update it sends, or its silence, is what `sessionAfter`
   * must say, and every field of the hand-written session envelope must be in the SDK's.
   */
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
   * The SDK's session as the page left it, as sdk-loader.ts continues it; a session of its
   * own for each case (made, not started: starting one would end and send the last).
   */
  function continueSession(page: PageSession): PageSession {
    const own = { ...page, sid: (++serial).toString(16).padStart(32, '0') };
    // With the browser's user agent, as `startSession` (sdk-loader.ts) gives it.
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
      [
        'anything once unhandled',
        { ...ok, status: 'unhandled', errors: 1 },
        () => [report('error')],
      ],
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
});

describe('pageSession: one per page load, none for the local inbox’s own pages', () => {
  const LOCAL = 'http://localinbox@localhost/1';
  const SENTRY = 'https://key@o1.ingest.us.sentry.io/2';
  it.each([
    [LOCAL, 'http://127.0.0.1:3000/', true],
    [LOCAL, 'http://127.0.0.1:3000/about', true],
    [LOCAL, 'http://127.0.0.1:3000/errors', false],
    [LOCAL, 'http://127.0.0.1:3000/errors?status=resolved', false],
    [LOCAL, 'http://127.0.0.1:3000/errors/issues/3', false],
    [LOCAL, 'http://127.0.0.1:3000/errors/sign-in', false],
    [LOCAL, 'http://127.0.0.1:3000/errorsx', true],
    // With Sentry there is no inbox: /errors is the app's own page (the not-found page).
    [SENTRY, 'http://127.0.0.1:3000/errors', true],
  ])('%s, %s → a session: %s', (dsn, url, starts) => {
    const session = pageSession(dsn, url);
    expect(session !== undefined).toBe(starts);
    if (session) expect(session).toMatchObject({ status: 'ok', errors: 0 });
    if (session) expect(session.sid).toMatch(/^[0-9a-f]{32}$/);
  });
});
