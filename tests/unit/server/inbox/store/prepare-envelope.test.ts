import { beforeAll, describe, expect, it } from 'vitest';
import { createDirectoryMapStore } from '#app/server/inbox/source-maps/map-store.server';
import {
  type GroupingMaps,
  MAX_FILES_RESOLVED,
  prepareEnvelope,
  resolvedForGrouping,
  sessionOf,
} from '#app/server/inbox/store/prepare-envelope';
import {
  buildFixture,
  CHUNK_URL,
  type Fixture,
  ROUTE_FILE,
  writeMapDir,
} from '../source-maps/fixture-build';

const encoder = new TextEncoder();
const NOW = Date.UTC(2026, 10, 26, 12);

function envelope(event: Record<string, unknown>, header: Record<string, unknown> = {}) {
  const body = JSON.stringify(event);
  return encoder.encode(
    `${JSON.stringify(header)}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(body) })}\n${body}\n`,
  );
}

const browserEvent = {
  event_id: 'ABCDEF01-2345-6789-ABCD-EF0123456789',
  timestamp: NOW / 1000 - 5,
  platform: 'javascript',
  level: 'error',
  environment: 'production',
  release: 'app@1.0.0',
  request: {
    url: 'http://localhost:3000/sentry-example-page?x=1',
    headers: {
      'User-Agent':
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
    },
  },
  tags: { digest: 'abc' },
  exception: {
    values: [
      {
        type: 'TypeError',
        value: 'x is undefined',
        stacktrace: {
          frames: [
            {
              filename: 'http://localhost:3000/src/about.tsx',
              function: 'onClick',
              lineno: 3,
              in_app: true,
            },
          ],
        },
      },
    ],
  },
};

describe('prepareEnvelope', () => {
  it('prepares an error event: normalised id, title, grouping hashes, and the breakdown’s tags', async () => {
    // Relay takes the event's id from the envelope's header, as the SDKs send it.
    const result = await prepareEnvelope(
      envelope(browserEvent, { event_id: browserEvent.event_id }),
      NOW,
    );
    if (!result.ok) throw new Error(result.reason);
    expect(result.eventId).toBe('abcdef0123456789abcdef0123456789');
    const event = result.prepared.event;
    expect(event).toMatchObject({
      eventId: 'abcdef0123456789abcdef0123456789',
      title: 'TypeError: x is undefined',
      environment: 'production',
      release: 'app@1.0.0',
      url: 'http://localhost:3000/sentry-example-page?x=1',
      groupingConfig: 'newstyle:2023-01-11',
      // For search: the exception whole, and the digest tag.
      message: 'TypeError: x is undefined',
      digest: 'abc',
    });
    expect(event?.hashes.length).toBeGreaterThan(0);
    expect(event?.tags).toEqual([
      ['browser', 'Chrome 156'],
      ['os', 'Linux'],
      ['url', '/sentry-example-page'],
      ['release', 'app@1.0.0'],
      ['environment', 'production'],
      ['level', 'error'],
      ['digest', 'abc'],
    ]);
    expect(JSON.parse(event?.payload ?? '{}').event_id).toBe('abcdef0123456789abcdef0123456789');
    expect(result.prepared.counts).toMatchObject({ event: 1 });
  });

  it('keeps the user the event names, by Sentry’s key, for the issue to count', async () => {
    const withUser = { ...browserEvent, user: { id: 42, email: 'a@example.com' } };
    const result = await prepareEnvelope(envelope(withUser), NOW);
    if (!result.ok) throw new Error(result.reason);
    expect(result.prepared.event?.userKey).toBe('id:42');
    expect(result.prepared.event?.tags).toContainEqual(['user', 'id:42']);
    const anonymous = await prepareEnvelope(envelope(browserEvent), NOW);
    if (!anonymous.ok) throw new Error(anonymous.reason);
    expect(anonymous.prepared.event && 'userKey' in anonymous.prepared.event).toBe(false);
  });

  it('groups the same bug on another line into the same hashes', async () => {
    const moved = structuredClone(browserEvent);
    (
      moved.exception.values[0] as { stacktrace: { frames: Array<{ lineno: number }> } }
    ).stacktrace.frames[0] = {
      ...browserEvent.exception.values[0]?.stacktrace.frames[0],
      lineno: 40,
    } as never;
    const [a, b] = await Promise.all([
      prepareEnvelope(envelope(browserEvent), NOW),
      prepareEnvelope(envelope(moved), NOW),
    ]);
    if (!a.ok || !b.ok) throw new Error('refused');
    expect(b.prepared.event?.hashes).toEqual(a.prepared.event?.hashes);
  });

  it('makes text SQLite can keep: a lone surrogate in the title becomes U+FFFD', async () => {
    const lone = structuredClone(browserEvent);
    (lone.exception.values[0] as { value: string }).value = 'broken \ud800 text';
    const result = await prepareEnvelope(envelope(lone), NOW);
    if (!result.ok) throw new Error(result.reason);
    expect(result.prepared.event?.title).toBe('TypeError: broken \ufffd text');
  });

  it('passes Relay’s refusal on, with its status', async () => {
    expect(await prepareEnvelope(encoder.encode('{}\n{"length":2}\n{}\n'), NOW)).toMatchObject({
      ok: false,
      status: 400,
    });
  });

  it('turns session updates into release health and stores no event for them', async () => {
    const now = new Date(NOW - 1000).toISOString();
    const session = JSON.stringify({
      sid: 'a'.repeat(32),
      init: true,
      started: now,
      timestamp: now,
      status: 'crashed',
      errors: 1,
      attrs: { release: 'app@1.0.0', environment: 'production' },
    });
    const result = await prepareEnvelope(
      encoder.encode(`{}\n{"type":"session"}\n${session}\n`),
      NOW,
    );
    if (!result.ok) throw new Error(result.reason);
    expect(result.prepared.event).toBeUndefined();
    expect(result.prepared.sessions).toEqual([
      {
        release: 'app@1.0.0',
        environment: 'production',
        started: 1,
        errored: 1,
        unhandled: 0,
        crashed: 1,
        abnormal: 0,
        sessionId: 'a'.repeat(32),
      },
    ]);
  });
});

describe('sessionOf: what one update adds to release health (Relay’s SessionLike)', () => {
  const update = {
    kind: 'session' as const,
    release: 'app@1.0.0',
    sessionId: 'a'.repeat(32),
    init: false,
    errors: 0,
    started: NOW,
    timestamp: NOW,
  };
  const none = { started: 0, errored: 0, unhandled: 0, crashed: 0, abnormal: 0 };
  it.each([
    { name: 'a first update, ok', given: { status: 'ok', init: true }, adds: { started: 1 } },
    { name: 'exited', given: { status: 'exited' }, adds: {} },
    { name: 'ok with an error', given: { status: 'ok', errors: 1 }, adds: { errored: 1 } },
    { name: 'errored', given: { status: 'errored', errors: 1 }, adds: { errored: 1 } },
    {
      // What the browser SDK sends for an error nobody caught (its client's
      // `_unhandledSessionStatus`): errored (`is_error`) and unhandled (`unhandled_count`).
      name: 'unhandled',
      given: { status: 'unhandled', errors: 1 },
      adds: { errored: 1, unhandled: 1 },
    },
    { name: 'crashed', given: { status: 'crashed', errors: 1 }, adds: { errored: 1, crashed: 1 } },
    { name: 'abnormal', given: { status: 'abnormal' }, adds: { errored: 1, abnormal: 1 } },
  ] as const)('$name', ({ given, adds }) => {
    expect(sessionOf({ ...update, ...given })).toEqual({
      release: 'app@1.0.0',
      environment: '',
      ...none,
      ...adds,
      sessionId: 'a'.repeat(32),
    });
  });

  it('an aggregate: its buckets are disjoint, all but exited errored', () => {
    expect(
      sessionOf({
        kind: 'aggregate',
        release: 'app@1.0.0',
        environment: 'production',
        started: NOW,
        exited: 10,
        errored: 1,
        abnormal: 2,
        unhandled: 3,
        crashed: 4,
      }),
    ).toEqual({
      release: 'app@1.0.0',
      environment: 'production',
      started: 20,
      errored: 10,
      unhandled: 3,
      crashed: 4,
      abnormal: 2,
    });
  });
});

let fixture: Fixture;
let maps: GroupingMaps;

beforeAll(async () => {
  fixture = await buildFixture();
  maps = {
    store: createDirectoryMapStore({
      root: await writeMapDir({ 'assets/index-Fx1a2b3c.js.map': fixture.mapText }),
    }),
    projectRoot: '/nowhere',
    serverOutputDir: '/nowhere/.output/server',
  };
});

/** The browser's event: the chunk's frames only, with the debug id naming their map. */
function eventWithFiles(extraFiles = 0): Record<string, unknown> {
  const frames = (fixture.exception.stacktrace?.frames ?? []).filter(
    (frame) => frame.filename === CHUNK_URL,
  );
  const extra = Array.from({ length: extraFiles }, (_, i) => ({
    filename: `http://localhost/_build/assets/other-${i}.js`,
    function: 'x',
    lineno: 1,
    colno: 1,
  }));
  return {
    platform: 'javascript',
    exception: {
      values: [{ ...fixture.exception, stacktrace: { frames: [...extra, ...frames] } }],
    },
    debug_meta: {
      images: [{ type: 'sourcemap', code_file: CHUNK_URL, debug_id: fixture.map.debugId }],
    },
  };
}

function framesOf(event: Record<string, unknown>): Array<Record<string, unknown>> {
  const values = (event.exception as { values: Array<{ stacktrace: { frames: [] } }> }).values;
  return values[0]?.stacktrace.frames ?? [];
}

describe('resolvedForGrouping', () => {
  it('gives a resolved frame its source file, line and context line, marked as mapped', async () => {
    const resolved = framesOf(await resolvedForGrouping(eventWithFiles(), maps));
    const ours = resolved.find((frame) => frame.filename === ROUTE_FILE);
    expect(ours).toMatchObject({ in_app: true, data: { sourcemap: 'build' } });
    expect(typeof ours?.context_line).toBe('string');
    expect(typeof ours?.lineno).toBe('number');
  });

  it('leaves the event as it came without maps, and when it names more files than a stack does', async () => {
    const plain = eventWithFiles();
    expect(await resolvedForGrouping(plain, undefined)).toBe(plain);
    const crowded = eventWithFiles(MAX_FILES_RESOLVED);
    expect(await resolvedForGrouping(crowded, maps)).toBe(crowded);
  });
});
