/**
 * The local DSN is public, so anyone can store any event. Hostile events, bounded as ingest
 * bounds them (normaliseEvent) and stored in the inbox database, must leave the inbox pages
 * small and working: each issue's page answers 200 with a bounded page, the list still shows
 * the others, a reused event id does not replace the first event, a payload that is not an
 * event is said to be unshowable, and viewing never logs a failure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseEvent } from '#app/server/inbox/normalise-event';
import type { PreparedEnvelope } from '#app/server/inbox/store/inbox-database.server';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { seededEvent, seedInbox } from '#tests/support/seed-inbox';

const ids = {
  normal: '1'.repeat(32),
  frames: '2'.repeat(32),
  crumbs: '3'.repeat(32),
  deep: '4'.repeat(32),
  long: '5'.repeat(32),
  broken: '6'.repeat(32),
};

const thrown = (value: string, frames: unknown[]) => ({
  exception: { values: [{ type: 'Error', value, stacktrace: { frames } }] },
});

/** A stored event whose payload is `event` as ingest bounds it; its own issue. */
function stored(id: string, title: string, event: Record<string, unknown>): PreparedEnvelope {
  const prepared = seededEvent({ eventId: id, hashes: [title] });
  const payload = JSON.stringify(normaliseEvent({ event_id: id, level: 'error', ...event }));
  return {
    ...prepared,
    event: { ...(prepared.event as NonNullable<PreparedEnvelope['event']>), title, payload },
  };
}

function deeplyNested(depth: number): unknown {
  let value: unknown = 1;
  for (let n = 0; n < depth; n += 1) value = { a: value };
  return value;
}

describe('hostile events in the inbox', () => {
  let server: BuiltServer;
  const issueOf = new Map<string, number>();

  beforeAll(async () => {
    const seeds = [
      stored(
        ids.normal,
        'Error: the real event',
        thrown('the real event', [{ function: 'realFn' }]),
      ),
      stored(
        ids.frames,
        'Error: many frames',
        thrown(
          'many frames',
          Array.from({ length: 349_000 }, () => ({})),
        ),
      ),
      stored(ids.crumbs, 'Error: many breadcrumbs', {
        ...thrown('many breadcrumbs', []),
        breadcrumbs: Array.from({ length: 20_000 }, (_, n) => ({ message: `crumb number ${n}` })),
      }),
      stored(ids.deep, 'deep breadcrumb', {
        message: 'deep breadcrumb',
        breadcrumbs: [{ message: 'deep', data: deeplyNested(10_000) }],
      }),
      stored(ids.long, 'Error: long', thrown(`long ${'x'.repeat(900_000)}`, [])),
      // A later event reusing the id of the first: the store keeps the first.
      stored(ids.normal, 'Error: an impostor', thrown('an impostor', [{ function: 'impostorFn' }])),
    ];
    // A payload that is no event at all (written by some other means): said so, not a failure.
    const broken = seededEvent({
      eventId: ids.broken,
      hashes: ['broken'],
      message: 'broken payload',
    });
    seeds.push({
      ...broken,
      event: {
        ...(broken.event as NonNullable<PreparedEnvelope['event']>),
        payload: '["not", "an", "event"]',
      },
    });
    server = await startBuiltServer({ MONITORING_INBOX_DIR: seedInbox(seeds) });
    for (const [name, id] of Object.entries(ids)) {
      const response = await fetch(`${server.url}/errors/${id}`, { redirect: 'manual' });
      expect(response.status, name).toBe(307);
      issueOf.set(
        id,
        Number(/\/errors\/issues\/(\d+)/.exec(response.headers.get('location') ?? '')?.[1]),
      );
    }
  });
  afterAll(() => server?.stop());

  const page = async (path: string) => {
    const response = await fetch(`${server.url}${path}`);
    return { status: response.status, html: await response.text() };
  };
  const issuePage = (id: string) => page(`/errors/issues/${issueOf.get(id)}`);

  it('shows at most 50 frames of an event sent with 349,000, on a small page', async () => {
    const { status, html } = await issuePage(ids.frames);
    expect(status).toBe(200);
    expect(html).toContain('Error: many frames');
    expect(html.match(/<li class="frame/g)).toHaveLength(50);
    expect(html.length).toBeLessThan(100_000);
  });

  it('shows the newest 100 breadcrumbs of 20,000, on a small page', async () => {
    const { status, html } = await issuePage(ids.crumbs);
    expect(status).toBe(200);
    expect(html).toContain('crumb number 19999<');
    expect(html).toContain('crumb number 19900<');
    expect(html).not.toContain('crumb number 19899<');
    expect(html.length).toBeLessThan(100_000);
  });

  it('shows a breadcrumb nested 10,000 deep, trimmed as Relay trims it (depth 5, 2 KiB)', async () => {
    const { status, html } = await issuePage(ids.deep);
    expect(status).toBe(200);
    expect(html).toContain('deep breadcrumb');
    expect(html).not.toContain('[Object]');
    expect(html.length).toBeLessThan(100_000);
  });

  it('cuts a 900,000-character message', async () => {
    const { status, html } = await issuePage(ids.long);
    expect(status).toBe(200);
    expect(html).toContain(`long ${'x'.repeat(100)}`);
    // Shown in the headline and the stack (8,192 characters each at most), and serialised once
    // more for hydration.
    expect(html.length).toBeLessThan(100_000);
  });

  it('keeps the first event of an id: a later one does not replace it', async () => {
    const { status, html } = await issuePage(ids.normal);
    expect(status).toBe(200);
    expect(html).toContain('Error: the real event');
    expect(html).toContain('realFn');
    expect(html).not.toContain('impostor');
  });

  it('says an event whose payload is not an event cannot be shown, and shows the issue', async () => {
    const { status, html } = await issuePage(ids.broken);
    expect(status).toBe(200);
    expect(html).toContain('This event could not be shown');
    expect(html).toContain('Error: broken payload');
    expect(server.output()).toContain(`[inbox] event ${ids.broken} could not be shown`);
  });

  it('still lists every issue, each once', async () => {
    const { status, html } = await page('/errors');
    expect(status).toBe(200);
    for (const issue of issueOf.values()) expect(html).toContain(`href="/errors/issues/${issue}"`);
    expect(html).not.toContain('impostor');
    expect(html).toContain('6 issues, 6 events (6 stored).');
  });

  it('logs no failure however often the pages are viewed', async () => {
    for (const id of Object.values(ids)) expect((await issuePage(id)).status).toBe(200);
    expect((await page('/errors')).status).toBe(200);
    // Every line the server logged for those views is in the output now.
    await server.stderrBarrier();
    const failures = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{"level":"error"'));
    expect(failures).toEqual([]);
  });
});
