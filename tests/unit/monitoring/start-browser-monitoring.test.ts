/**
 * Tests of start-browser-monitoring, one section per part of the module, in its order.
 */
import { describe, expect, it } from 'vitest';
import {
  describeViolation,
  MAX_CSP_REPORTS_PER_PAGE,
  type PageLoadRouter,
  type RenderedRouter,
  type RootMatchState,
  type RouterLocation,
  reportCspViolations,
  routeContentFollowsShell,
  routeIdOf,
  showsPageLoadRoute,
  whenPageHydrated,
} from '#app/monitoring/start-browser-monitoring';

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

/** Matches as Router 1.120 does for these paths: the root, then the route (if any). */
const ROUTES: Record<string, string[]> = {
  '/': ['__root__', '/'],
  '/about': ['__root__', '/about'],
  '/about/': ['__root__', '/about'],
  '/errors/abc': ['__root__', '/errors/$eventId'],
  '/errors/def': ['__root__', '/errors/$eventId'],
  '/nowhere': ['__root__'],
};

const at = (pathname: string): RouterLocation => ({ pathname, search: {} });

function routerAt(pathname: string): PageLoadRouter {
  return {
    state: { location: at(pathname) },
    matchRoutes: (path) => (ROUTES[path] ?? []).map((routeId) => ({ routeId })),
  };
}

describe('routeIdOf', () => {
  it.each([
    ['/about', '/about'],
    ['/errors/abc', '/errors/$eventId'],
    ['/nowhere', '__root__'],
  ])('%s is named %s', (path, routeId) => {
    expect(routeIdOf(routerAt('/'), at(path))).toBe(routeId);
  });
});

describe('showsPageLoadRoute', () => {
  it.each([
    ['the same page', '/about', '/about', true],
    ['the URL normalised to the same route', '/about/', '/about', true],
    ['another page of the same route', '/errors/abc', '/errors/def', true],
    ['a page of another route', '/', '/about', false],
    ['the not-found page, then a route', '/nowhere', '/', false],
  ])('%s: loaded %s, now %s -> %s', (_case, loaded, now, shows) => {
    expect(showsPageLoadRoute(routerAt(now), at(loaded))).toBe(shows);
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
