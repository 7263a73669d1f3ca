/**
 * The inbox's read API over real HTTP against the production build: a script reads it with the
 * inbox's token as a bearer (the one made for the run here), a browser with its session; anyone
 * else gets a 401 with a Bearer challenge, and wrong tokens count toward the sign-in's lockout.
 * Its searches find what the /errors list finds, its pages walk every issue once and an issue's
 * events newest first, bad input is a 400 and an unknown issue a 404, all as JSON; with
 * SENTRY_DSN it is not there.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openInboxDatabase } from '#app/server/inbox/store/inbox-database.server';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { withoutTextSeparators } from '#tests/support/html-text';
import { generatedTokenIn, postSignIn, sessionCookieOf } from '#tests/support/inbox-sign-in';
import { DATABASE_FILE, seededEvent, seedInbox, seedInto } from '#tests/support/seed-inbox';

const NOW = Date.now();
const MINUTE = 60_000;
/** The issue whose events the events tests walk: five, received a minute apart. */
const EVENTS = Array.from({ length: 5 }, (_, i) => `${String(i + 1).repeat(8)}`.padEnd(32, 'a'));

/**
 * Eight issues (ids 1–8 in this order): one resolved, one ignored, a warning, another browser,
 * and the first with five events.
 */
function seeded(): string {
  // Received before the first issue's five events below, after every event here happened.
  const dir = seedInbox(
    [
      seededEvent({ type: 'TypeError', message: 'x is undefined', at: NOW - 60 * MINUTE }),
      seededEvent({ type: 'RangeError', message: 'too far', at: NOW - 50 * MINUTE }),
      seededEvent({ type: 'Error', message: 'resolved one', at: NOW - 45 * MINUTE }),
      seededEvent({ type: 'Error', message: 'ignored one', at: NOW - 40 * MINUTE }),
      seededEvent({
        type: 'Warning',
        message: 'slow page',
        level: 'warning',
        at: NOW - 35 * MINUTE,
      }),
      seededEvent({
        type: 'TypeError',
        message: 'y is undefined',
        at: NOW - 30 * MINUTE,
        tags: [['browser', 'Firefox 140']],
      }),
      seededEvent({ type: 'SyntaxError', message: 'bad json', at: NOW - 25 * MINUTE }),
      seededEvent({ type: 'Error', message: 'network down', at: NOW - 20 * MINUTE }),
    ],
    { receivedAt: NOW - 15 * MINUTE },
  );
  // The first issue's events, each received later than the one before.
  EVENTS.forEach((eventId, i) => {
    seedInto(
      dir,
      [
        seededEvent({
          eventId,
          type: 'TypeError',
          message: 'x is undefined',
          at: NOW - (10 - i) * MINUTE,
        }),
      ],
      { receivedAt: NOW - (10 - i) * MINUTE },
    );
  });
  const db = openInboxDatabase(join(dir, DATABASE_FILE), { maxEvents: 10_000 });
  db.triage({ kind: 'ids', ids: [3] }, { kind: 'resolve' }, NOW);
  db.triage({ kind: 'ids', ids: [4] }, { kind: 'ignore', mute: { kind: 'forever' } }, NOW);
  db.close();
  return dir;
}

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

async function getJson(
  server: BuiltServer,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, { method, headers, redirect: 'manual' });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? '' : JSON.parse(text),
  };
}

interface Page<Item> {
  data: Item[];
  next: string | null;
}
interface Issue {
  id: string;
  title: string;
  status: string;
  count: string;
  permalink: string;
}
interface Event {
  eventID: string;
  groupID: string;
  dateReceived: string;
  payload: { event_id: string } | null;
}

/** The issues a list page shows, by id, in its order. */
function listedIds(html: string): string[] {
  return [...html.matchAll(/<a href="\/errors\/issues\/(\d+)" class="issue-title">/g)].map(
    (m) => m[1] as string,
  );
}

describe('the read API, in production with the token made for the run', () => {
  let server: BuiltServer;
  let bearer: Record<string, string>;
  let cookie: Record<string, string>;

  beforeAll(async () => {
    server = await startBuiltServer({
      MONITORING_INBOX_DIR: seeded(),
      // A visitor on this machine is a visitor: only the token or a session opens the inbox.
      MONITORING_INBOX_TRUST_LOOPBACK: 'false',
      // So that the lockout test is a client of its own (X-Forwarded-For), not this one.
      TRUSTED_PROXIES: 'loopback',
    });
    const token = generatedTokenIn(server.output());
    bearer = { authorization: `Bearer ${token}` };
    cookie = { cookie: sessionCookieOf(await postSignIn(server.url, token)) };
  });
  afterAll(() => server?.stop());

  const api = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    getJson(server, `/errors/api${path}`, headers, method);

  it('answers the bearer token with JSON that no cache keeps and nothing sniffs', async () => {
    const { status, headers, body } = await api('/issues', bearer);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('x-content-type-options')).toBe('nosniff');
    const { data, next } = body as Page<Issue>;
    // The list's default: unresolved and resolved, ignored hidden; newest last seen first.
    expect(data.map((issue) => issue.id)).toEqual(['1', '8', '7', '6', '5', '3', '2']);
    expect(next).toBeNull();
    expect(headers.get('x-hits')).toBe('7');
    expect(data[0]).toMatchObject({
      id: '1',
      title: 'TypeError: x is undefined',
      status: 'unresolved',
      count: '6',
      permalink: '/errors/issues/1',
    });
  });

  it('answers the session cookie of a signed-in browser the same', async () => {
    const withBearer = await api('/issues/1', bearer);
    const withCookie = await api('/issues/1', cookie);
    expect(withCookie.status).toBe(200);
    expect(withCookie.body).toEqual(withBearer.body);
    expect(withCookie.body).toMatchObject({ id: '1', count: '6', storedEvents: 6 });
  });

  it('refuses a request with neither: 401 JSON with a Bearer challenge, no issue in it', async () => {
    for (const path of ['/issues', '/issues/1', '/issues/1/events', '/nothing-here']) {
      const { status, headers, body } = await api(path);
      expect(status).toBe(401);
      expect(headers.get('www-authenticate')).toBe('Bearer realm="inbox"');
      expect(headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(JSON.stringify(body)).not.toContain('TypeError');
      expect(body).toEqual({ detail: expect.stringContaining('Bearer') });
    }
    const otherScheme = await api('/issues', { authorization: 'Basic dG9rZW46' });
    expect(otherScheme.status).toBe(401);
    const noToken = await api('/issues', { authorization: 'Bearer' });
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('www-authenticate')).toBe(
      'Bearer realm="inbox", error="invalid_request"',
    );
  });

  it('counts wrong tokens toward the sign-in’s lockout, which then holds for both ways in', async () => {
    const client = { 'x-forwarded-for': '203.0.113.7' };
    const token = bearer.authorization as string;
    const wrong = { ...client, authorization: 'Bearer not-the-token' };
    const mark = server.output().length;
    // Four wrong bearers and one wrong sign-in make the five a client may get wrong.
    for (let i = 0; i < 4; i++) {
      const { status, headers } = await api('/issues', wrong);
      expect(status).toBe(401);
      expect(headers.get('www-authenticate')).toBe('Bearer realm="inbox", error="invalid_token"');
    }
    const wrongSignIn = await postSignIn(server.url, 'not-the-token', client);
    expect(wrongSignIn.headers.get('location')).toBe('/errors/sign-in?failed=1');
    // Locked out: the right token is refused too, as a bearer and on the sign-in form.
    const locked = await api('/issues', { ...client, authorization: token });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(locked.body).toEqual({ detail: expect.stringContaining('too many wrong tokens') });
    const lockedSignIn = await postSignIn(server.url, token.slice('Bearer '.length), client);
    expect(lockedSignIn.status).toBe(429);
    // Said in the log as a sign-in's are, never with the token tried.
    const printed = await server.printedSince(mark);
    expect(printed).toContain('[inbox] sign-in refused: wrong token from 203.0.113.7 (1 of 5');
    expect(printed).not.toContain('not-the-token');
    // Another client is not locked out.
    expect((await api('/issues', bearer)).status).toBe(200);
  });

  it.each([
    '',
    'is:resolved',
    'is:ignored',
    'is:unresolved level:warning',
    'browser:"Firefox 140"',
    '!browser:"Firefox 140"',
    'undefined',
    'is:[resolved, ignored]',
  ])('finds for the query %j what the /errors list finds, in its order', async (query) => {
    const list = await fetch(`${server.url}/errors?q=${encodeURIComponent(query)}`, {
      headers: cookie,
    });
    expect(list.status).toBe(200);
    const expected = listedIds(withoutTextSeparators(await list.text()));
    const { status, body } = await api(`/issues?query=${encodeURIComponent(query)}`, bearer);
    expect(status).toBe(200);
    expect((body as Page<Issue>).data.map((issue) => issue.id)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0);
  });

  it.each(['last-seen', 'first-seen', 'count'])(
    'pages through every issue exactly once by its next links (sort=%s)',
    async (sort) => {
      const whole = await api(
        `/issues?query=${encodeURIComponent('is:[unresolved, resolved, ignored]')}&sort=${sort}&limit=100`,
        bearer,
      );
      const all = (whole.body as Page<Issue>).data.map((issue) => issue.id);
      expect(all).toHaveLength(8);
      const walked: string[] = [];
      let path: string | null =
        `/errors/api/issues?query=${encodeURIComponent('is:[unresolved, resolved, ignored]')}&sort=${sort}&limit=3`;
      let pages = 0;
      // Bounded: a cursor that went nowhere would walk the first page forever.
      while (path !== null && pages < 10) {
        const { status, headers, body } = await getJson(server, path, bearer);
        expect(status).toBe(200);
        const page = body as Page<Issue>;
        walked.push(...page.data.map((issue) => issue.id));
        expect(headers.get('x-hits')).toBe('8');
        // The Link header says what `next` says, as Sentry's does.
        if (page.next === null) expect(headers.get('link')).toBeNull();
        else
          expect(headers.get('link')).toMatch(
            /^<(.+)>; rel="next"; results="true"; cursor="[^"]+"$/,
          );
        if (page.next !== null) expect(headers.get('link')).toContain(`<${page.next}>`);
        path = page.next;
        pages++;
      }
      expect(pages).toBe(3);
      expect(walked).toEqual(all);
    },
  );

  it('pages an issue’s events newest first, each with its stored payload', async () => {
    const walked: Event[] = [];
    let path: string | null = '/errors/api/issues/1/events?limit=2';
    for (let pages = 0; path !== null && pages < 10; pages++) {
      const { status, body } = await getJson(server, path, bearer);
      expect(status).toBe(200);
      const page = body as Page<Event>;
      expect(page.data.length).toBeLessThanOrEqual(2);
      walked.push(...page.data);
      path = page.next;
    }
    // Five seeded a minute apart, newest first, then the issue's first event, received earliest.
    expect(walked.map((event) => event.eventID).slice(0, 5)).toEqual([...EVENTS].reverse());
    expect(walked).toHaveLength(6);
    for (const event of walked) {
      expect(event.groupID).toBe('1');
      expect(event.payload?.event_id).toBe(event.eventID);
    }
    const received = walked.map((event) => Date.parse(event.dateReceived));
    expect(received).toEqual([...received].sort((a, b) => b - a));
  });

  it.each([
    ['/issues/abc', /issue id/],
    ['/issues/0/events', /issue id/],
    ['/issues?limit=0', /^limit must be/],
    ['/issues?sort=newest', /^sort must be/],
    ['/issues?cursor=nonsense', /^cursor is not one of ours$/],
    ['/issues?sort=count&cursor=last-seen:1:1', /^cursor was made for sort=last-seen/],
    [`/issues?query=${'a'.repeat(201)}`, /^query is longer than 200 characters$/],
    ['/issues?query=is:whatever', /^query: unknown value for is: whatever/],
    ['/issues?query=lvl:error', /^query: unknown search key lvl$/],
    ['/issues/1/events?cursor=nonsense', /^cursor is not one of ours$/],
    [`/issues/1/events?cursor=${'f'.repeat(32)}`, /^cursor names no stored event of this issue$/],
  ])('answers bad input %s with 400 and a short reason', async (path, reason) => {
    const { status, headers, body } = await api(path, bearer);
    expect(status).toBe(400);
    expect(headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(body).toEqual({ detail: expect.stringMatching(reason) });
  });

  it.each(['/issues/999', '/issues/999/events', '/', '/issues/1/tags'])(
    'answers %s, which names nothing, with 404 JSON',
    async (path) => {
      const { status, body } = await api(path, bearer);
      expect(status).toBe(404);
      expect(body).toEqual({ detail: expect.any(String) });
    },
  );

  it('only reads: other methods get 405 with Allow, HEAD the headers of GET', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const { status, headers } = await api('/issues', bearer, method);
      expect(status).toBe(405);
      expect(headers.get('allow')).toBe('GET, HEAD');
    }
    const head = await api('/issues', bearer, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers.get('x-hits')).toBe('7');
  });
});

describe('the read API with SENTRY_DSN', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer({
      // Never reached: no test here fails on the server.
      SENTRY_DSN: 'http://publickey@127.0.0.1:9/2',
      MONITORING_INBOX_TOKEN: 'correct-horse-battery-staple',
      MONITORING_INBOX_DIR: seeded(),
    });
  });
  afterAll(() => server?.stop());

  it.each(['/errors/api/issues', '/errors/api/issues/1', '/errors/api/issues/1/events'])(
    'is not there, as /errors is not: %s answers 404 JSON, even to the token',
    async (path) => {
      const { status, body } = await getJson(server, path, {
        authorization: 'Bearer correct-horse-battery-staple',
      });
      expect(status).toBe(404);
      expect(body).toEqual({ detail: expect.stringContaining('Sentry') });
      expect(JSON.stringify(body)).not.toContain('x is undefined');
    },
  );
});
