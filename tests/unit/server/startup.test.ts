/**
 * The warm-up before the built server listens: which pages, in which order, and that a page
 * that cannot be rendered neither stops it nor floods the log.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type LocalFetcher,
  WARM_UP_REPEATS,
  warmUp,
  warmUpPaths,
} from '#app/server/startup.server';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('warmUpPaths', () => {
  it.each([
    ['local-inbox', ['/', '/about', '/errors/sign-in']],
    ['sentry', ['/', '/about']], // no /errors with a DSN: it is the not-found page
  ] as const)('%s → %j', (monitoring, paths) => {
    expect(warmUpPaths(monitoring)).toEqual(paths);
  });
});

/** A nitro app that records each render's start and end, and fails the paths it is told to. */
function fakeApp(failing: ReadonlySet<string> = new Set()) {
  const log: string[] = [];
  const headers: Array<Record<string, string>> = [];
  const app: LocalFetcher = {
    localFetch: async (path, init) => {
      log.push(`start ${path}`);
      headers.push(init.headers);
      await new Promise((next) => setImmediate(next));
      if (failing.has(path)) throw new Error(`no route for ${path}`);
      return new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('<html>'));
            // The body ends later: the warm-up waits for the whole page.
            setImmediate(() => {
              log.push(`end ${path}`);
              controller.close();
            });
          },
        }),
      );
    },
  };
  return { app, log, headers };
}

describe('warmUp', () => {
  it('renders each page once, one after another, to the end of its body, then the repeats', async () => {
    const { app, log, headers } = fakeApp();
    await warmUp(app, ['/', '/about']);
    // The first pass: each page whole before the next starts.
    expect(log.slice(0, 4)).toEqual(['start /', 'end /', 'start /about', 'end /about']);
    const rest = log.slice(4);
    expect(rest.filter((line) => line === 'start /')).toHaveLength(WARM_UP_REPEATS);
    expect(rest.filter((line) => line === 'end /about')).toHaveLength(WARM_UP_REPEATS);
    // The repeats at once: every one started before the first of them ended.
    expect(rest.findIndex((line) => line.startsWith('end '))).toBe(2 * WARM_UP_REPEATS);
    // As a browser asks: the streaming render, as visitors get it.
    for (const sent of headers) expect(sent['user-agent']).toMatch(/^Mozilla\/5\.0 .*Chrome\//);
  });

  it('goes on past a page that cannot be rendered, and says so once', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { app, log } = fakeApp(new Set(['/about']));
    await warmUp(app, ['/about', '/']);
    expect(log.filter((line) => line === 'end /')).toHaveLength(1 + WARM_UP_REPEATS);
    expect(errors.mock.calls).toEqual([
      ['[server] warm-up of /about failed (the server starts anyway): no route for /about'],
    ]);
  });
});
