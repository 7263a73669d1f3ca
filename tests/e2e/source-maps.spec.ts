/**
 * Readable browser stacks in Chromium against the production build: an error thrown on the
 * example page reaches the fake ingest with `debug_meta.images`, the debug IDs injected into
 * the chunks, each found in exactly one map of the build: the map of the chunk the frame is in;
 * and in_app true on the route's frame, false on React's.
 */
import { expect, test } from '@playwright/test';
import { type FakeSentry, startFakeSentry } from '#tests/fixtures/fake-sentry';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { clientMaps } from '#tests/support/client-build';
import { parseEnvelope } from '#tests/support/received-envelopes';
import { waitUntilReactOwns } from './support/hydration';
import { TUNNEL_TIMEOUT_MS } from './support/tunnel';

const MESSAGE = 'Sentry example: client error thrown in an event handler';

interface BrowserEvent {
  exception?: { values?: Array<{ value?: string; stacktrace?: { frames?: Frame[] } }> };
  debug_meta?: { images?: Array<{ type?: string; code_file?: string; debug_id?: string }> };
}
interface Frame {
  filename?: string;
  abs_path?: string;
  in_app?: boolean;
}

let ingest: FakeSentry;
let server: BuiltServer;

test.beforeAll(async () => {
  ingest = await startFakeSentry();
  server = await startBuiltServer({
    ENABLE_EXAMPLE_ROUTES: 'true',
    SENTRY_DSN: ingest.dsn(),
    SENTRY_TUNNEL_TIMEOUT_MS: String(TUNNEL_TIMEOUT_MS),
    SENTRY_TRACES_SAMPLE_RATE: '0',
  });
});
test.afterAll(async () => {
  await server?.stop();
  await ingest?.close();
});

function receivedEvent(): BrowserEvent | undefined {
  return ingest.received
    .flatMap((request) => parseEnvelope(request.body).items)
    .filter((item) => item.header.type === 'event')
    .map((item) => item.payload as BrowserEvent)
    .find((event) => event.exception?.values?.at(-1)?.value === MESSAGE);
}

test('a client error carries debug IDs that each name exactly one map of the build', async ({
  page,
}) => {
  await page.goto(`${server.url}/sentry-example-page`);
  const button = page.getByRole('button', { name: 'Throw client error' });
  await waitUntilReactOwns(button);
  await button.click();
  await expect.poll(() => receivedEvent()).toBeDefined();
  const event = receivedEvent() as BrowserEvent;

  const images = event.debug_meta?.images ?? [];
  expect(images.length).toBeGreaterThan(0);
  const maps = clientMaps();
  for (const image of images) {
    expect(image.type).toBe('sourcemap');
    const owners = maps.filter((map) => map.debugId === image.debug_id);
    const chunk = new URL(image.code_file ?? '').pathname;
    expect(
      owners.map((map) => `/${map.path}`),
      chunk,
    ).toEqual([`${chunk}.map`]);
  }

  // The frame that threw is in the example page's chunk, and that chunk has its image.
  const frames = event.exception?.values?.at(-1)?.stacktrace?.frames ?? [];
  const thrower = frames.at(-1)?.abs_path ?? frames.at(-1)?.filename ?? '';
  expect(new URL(thrower).pathname).toMatch(/^\/_build\/assets\/sentry-example-page-[\w-]+\.js$/);
  expect(images.map((image) => image.code_file)).toContain(thrower);

  // Sentry groups by the in-app frames: the route's handler is ours, React's dispatch is not.
  expect(frames.at(-1)?.in_app).toBe(true);
  const react = frames.filter((frame) => /\/vendor-react-[\w-]+\.js$/.test(frame.filename ?? ''));
  expect(react.length).toBeGreaterThan(0);
  expect(react.map((frame) => frame.in_app)).toEqual(react.map(() => false));
});
