/**
 * The local DSN is public, so anyone can store any event through the tunnel. Hostile events
 * sent there must leave the inbox pages small and working: each detail page answers 200 with
 * a bounded page, the list still shows the others, a reused event id does not replace the
 * first event, and viewing never adds an inbox entry (no failure, so nothing reported).
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/local-dsn';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { send } from '#tests/support/envelopes';

const ids = {
  normal: '1'.repeat(32),
  frames: '2'.repeat(32),
  crumbs: '3'.repeat(32),
  deep: '4'.repeat(32),
  long: '5'.repeat(32),
};

/** An envelope for the local DSN around an event given as JSON text (so it can be deep). */
function envelope(eventJson: string): Buffer {
  const event = Buffer.from(eventJson);
  return Buffer.concat([
    Buffer.from(`${JSON.stringify({ dsn: LOCAL_INBOX_DSN })}\n`),
    Buffer.from(`${JSON.stringify({ type: 'event', length: event.length })}\n`),
    event,
    Buffer.from('\n'),
  ]);
}

function event(id: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ event_id: id, level: 'error', platform: 'javascript', ...fields });
}

const thrown = (value: string, frames: unknown[]) => ({
  exception: { values: [{ type: 'Error', value, stacktrace: { frames } }] },
});

const hostile = {
  // As many empty frames as fit in the tunnel's 1 MiB.
  frames: event(
    ids.frames,
    thrown(
      'many frames',
      Array.from({ length: 349_000 }, () => ({})),
    ),
  ),
  crumbs: event(ids.crumbs, {
    ...thrown('many breadcrumbs', []),
    breadcrumbs: Array.from({ length: 20_000 }, (_, n) => ({ message: `crumb number ${n}` })),
  }),
  deep: `{"event_id":"${ids.deep}","message":"deep breadcrumb","breadcrumbs":[{"message":"deep","data":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}]}`,
  long: event(ids.long, thrown(`long ${'x'.repeat(900_000)}`, [])),
};

describe('hostile events stored through the tunnel', () => {
  let server: BuiltServer;
  let inboxDir: string;
  const entries = () => readdirSync(inboxDir).filter((name) => name.endsWith('.envelope'));

  const store = async (body: Buffer) => {
    expect(body.length).toBeLessThanOrEqual(1024 * 1024);
    const answer = await send(`${server.url}/monitoring?o=0&p=1`, { body });
    expect(answer.status).toBe(200);
  };

  beforeAll(async () => {
    inboxDir = join(mkdtempSync(join(tmpdir(), 'inbox-hostile-')), 'inbox');
    server = await startBuiltServer({ MONITORING_INBOX_DIR: inboxDir });
    await store(envelope(event(ids.normal, thrown('the real event', [{ function: 'realFn' }]))));
    for (const json of Object.values(hostile)) await store(envelope(json));
    // A later envelope reusing the id of the first event.
    await store(envelope(event(ids.normal, thrown('an impostor', [{ function: 'impostorFn' }]))));
  });
  afterAll(() => server?.stop());

  const page = async (path: string) => {
    const response = await fetch(`${server.url}${path}`);
    return { status: response.status, html: await response.text() };
  };

  it('shows at most 50 frames of an event sent with 349,000, on a small page', async () => {
    const { status, html } = await page(`/errors/${ids.frames}`);
    expect(status).toBe(200);
    expect(html).toContain('Error: many frames');
    expect(html.match(/<li class="frame/g)).toHaveLength(50);
    expect(html.length).toBeLessThan(100_000);
  });

  it('shows the newest 100 breadcrumbs of 20,000, on a small page', async () => {
    const { status, html } = await page(`/errors/${ids.crumbs}`);
    expect(status).toBe(200);
    expect(html).toContain('crumb number 19999<');
    expect(html).toContain('crumb number 19900<');
    expect(html).not.toContain('crumb number 19899<');
    expect(html.length).toBeLessThan(100_000);
  });

  it('shows a breadcrumb nested 100,000 deep, trimmed as Relay trims it (depth 5, 2 KiB)', async () => {
    const { status, html } = await page(`/errors/${ids.deep}`);
    expect(status).toBe(200);
    expect(html).toContain('deep breadcrumb');
    expect(html).not.toContain('[Object]');
    expect(html.length).toBeLessThan(100_000);
  });

  it('cuts a 900,000-character message', async () => {
    const { status, html } = await page(`/errors/${ids.long}`);
    expect(status).toBe(200);
    expect(html).toContain(`long ${'x'.repeat(100)}`);
    // The value is shown in the headline and the stack (8,192 characters each at most), and
    // serialised once more for hydration.
    expect(html.length).toBeLessThan(100_000);
  });

  it('keeps the first event of an id: a later envelope does not replace it', async () => {
    const { status, html } = await page(`/errors/${ids.normal}`);
    expect(status).toBe(200);
    expect(html).toContain('Error: the real event');
    expect(html).toContain('realFn');
    expect(html).not.toContain('impostor');
  });

  it('still lists every event, each id once', async () => {
    const { status, html } = await page('/errors');
    expect(status).toBe(200);
    for (const id of Object.values(ids)) expect(html).toContain(`href="/errors/${id}"`);
    expect(html).toContain('Error: the real event');
    expect(html).not.toContain('impostor');
    expect(html).toContain('5 events in 6 envelopes.');
  });

  it('adds no inbox entry and logs no failure however often the pages are viewed', async () => {
    const before = entries().length;
    for (const id of Object.values(ids)) {
      expect((await page(`/errors/${id}`)).status).toBe(200);
    }
    expect((await page('/errors')).status).toBe(200);
    // Every line the server logged for those views is in the output now.
    await server.stderrBarrier();
    const failures = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{"level":"error"'));
    expect(failures).toEqual([]);
    expect(entries()).toHaveLength(before);
  });
});
