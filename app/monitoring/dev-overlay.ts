/**
 * Development's error overlay, the browser's half (decision 0970): every failure a developer
 * causes (a render, an event handler, a rejected promise, a server failure that reached the
 * page by its digest) opens vite's own overlay element with the real message, our frames
 * resolved through the dev server's source maps, and a code frame. The page behind it stays
 * the generic one, as in production. The server's half is app/server/failures/dev-failure.server.ts.
 *
 * Imported only behind `import.meta.env.DEV`: production bundles hold none of it
 * (tests/http/page-failures.test.ts checks every client chunk).
 */
import { readDigest } from './failure-view';
import { thrownFacts } from './recorder/recorder';

/** Served by the client router's vite server (build/dev-overlay.ts). */
const ENDPOINT = '/_build/__dev-errors';
/** Defined by vite's client (`/@vite/client`), which every dev page loads. */
const OVERLAY_ELEMENT = 'vite-error-overlay';

const shownErrors = new WeakSet<object>();
const shownDigests = new Set<string>();

/** Opens the overlay for a failure, once per error and once per server failure's digest. */
export function showDevOverlay(error: unknown, digest = readDigest(error)): void {
  if (typeof error === 'object' && error !== null) {
    if (shownErrors.has(error)) return;
    shownErrors.add(error);
  }
  if (digest) {
    if (shownDigests.has(digest)) return;
    shownDigests.add(digest);
  }
  overlayFor(error, digest)
    .then(open)
    .catch((reason: unknown) => console.warn('[dev overlay] could not show the failure', reason));
}

/** Failures nothing caught: event handlers, timers, rejected promises. */
export function watchForDevOverlay(target: Window): void {
  target.addEventListener('error', (event) => showDevOverlay(event.error ?? event.message));
  target.addEventListener('unhandledrejection', (event) => showDevOverlay(event.reason));
}

async function overlayFor(error: unknown, digest: string | undefined): Promise<unknown> {
  const response = digest
    ? await fetch(`${ENDPOINT}?digest=${encodeURIComponent(digest)}`)
    : await fetch(ENDPOINT, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...textOf(error), page: location.href }),
      });
  return response.ok ? response.json() : undefined;
}

/** The text the server resolves: the recorder's facts of the thrown value, as one message. */
function textOf(error: unknown): { message: string; stack: string } {
  const { name, message, stack = '' } = thrownFacts(error);
  return { message: name ? `${name}: ${message}` : message, stack };
}

function open(payload: unknown): void {
  const Overlay = customElements.get(OVERLAY_ELEMENT);
  if (!payload || !Overlay) return;
  // One at a time, as vite's own overlay: the latest failure is the one to read.
  for (const shown of document.querySelectorAll(OVERLAY_ELEMENT)) shown.remove();
  // Without vite's file links: vite 6 drops the text after a stack's last link, and its links
  // open absolute paths only.
  document.body.appendChild(new Overlay(payload, false));
}
