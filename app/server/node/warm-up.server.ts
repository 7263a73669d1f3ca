/**
 * The built server's warm-up: before it listens, each process renders the pages a new visitor
 * opens first, in-process, through the same nitro app its visitors reach (nitro's `localFetch`:
 * no socket, no port). The first render of a process loads the route chunks, opens the inbox,
 * and has V8 compile React's server renderer, the router and Start: 0.1-3 s of a held event loop
 * on a busy machine, which made the first visitors' pages 503 "The server is busy" and the
 * load-shedding test fail on a fresh server. Paid here, before the port opens, it delays the
 * start line instead (decision 1030).
 */

/** What the warm-up needs of nitro's app: its in-process fetch. */
export interface LocalFetcher {
  localFetch(path: string, init: { headers: Record<string, string> }): Promise<Response>;
}

/**
 * The pages a visitor opens first. `/errors` without a session renders its sign-in page (what
 * the warm-up, with no address of its own, would be sent to); its issue list, behind the sign-in,
 * is warmed by its first reader.
 */
export function warmUpPaths(monitoring: 'local-inbox' | 'sentry'): string[] {
  return monitoring === 'local-inbox' ? ['/', '/about', '/errors/sign-in'] : ['/', '/about'];
}

/**
 * A browser's User-Agent, bare: browsers get the streaming render (Start renders the whole page at
 * once for crawlers, isbot), which is what visitors are served. Any note added to it (it once
 * ended in "(server warm-up)") made isbot take it for a crawler, so the warm-up compiled the
 * crawlers' render instead. The page cache starts after the warm-up, so it keeps none of these.
 */
const WARM_UP_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/**
 * A warm-up that has not ended by then is given up and the server listens anyway: a page that
 * hangs must not keep the server from starting. Far over the 0.5-10 s seen on a busy 2-core
 * machine.
 */
export const WARM_UP_LIMIT_MS = 60_000;

/**
 * How many more times each page is rendered after its first render. The first compiles the code
 * to bytecode; the next have V8 compile what runs most to machine code. With one render, the
 * first visitors' renders still held the loop 350-500 ms (a 250 ms window's mean lag up to 266 ms,
 * shed) on a busy 2-core machine with a second worker warming beside; with six, the worst
 * window's mean was 30 ms. They run at once: the home page waits for an event-loop window, and
 * its waits overlap.
 */
export const WARM_UP_REPEATS = 5;

/**
 * Renders each path once, one after another (at once, they would each compile the same cold
 * code), then WARM_UP_REPEATS more times each, all at once; resolves when all are done or the
 * limit has passed. A page that fails is recorded as any failed page is (it would fail its first
 * visitor too); a render that cannot be asked at all is said once here; neither stops the server. The limit's timer also
 * keeps the process alive meanwhile: nothing else does before the server listens, and the home
 * page waits on the event-loop monitor's unref'd timer.
 */
export async function warmUp(app: LocalFetcher, paths: readonly string[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'limit'>((done) => {
    timer = setTimeout(() => done('limit'), WARM_UP_LIMIT_MS);
  });
  const failed = new Set<string>();
  const render = async (path: string) => {
    try {
      const response = await app.localFetch(path, {
        headers: { 'user-agent': WARM_UP_USER_AGENT, accept: 'text/html' },
      });
      // The whole body: a streamed page's deferred parts are rendered while it is read.
      await response.arrayBuffer();
    } catch (error) {
      if (failed.has(path)) return;
      failed.add(path);
      console.error(
        `[server] warm-up of ${path} failed (the server starts anyway): ${error instanceof Error ? error.message : error}`,
      );
    }
  };
  const renderAll = async () => {
    for (const path of paths) await render(path);
    await Promise.all(
      Array.from({ length: WARM_UP_REPEATS }, () => paths.map((path) => render(path))).flat(),
    );
  };
  const outcome = await Promise.race([renderAll(), limit]);
  clearTimeout(timer);
  if (outcome === 'limit') {
    console.error(
      `[server] warm-up still rendering after ${WARM_UP_LIMIT_MS / 1000} s: listening anyway`,
    );
  }
}
