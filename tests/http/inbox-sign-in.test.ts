/**
 * Signing in to the private inbox, fit for the internet (decision 0306): the production default
 * asks everyone, this machine included, to sign in, with a token the server makes for the run
 * and prints as a one-click link; only POST signs in; guessing locks a client out for a while
 * and is logged in a bounded number of lines; a session is a random id that sign-out ends.
 * Every server here runs without MONITORING_INBOX_TRUST_LOOPBACK (the harness turns it on).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { errorEnvelope } from '#tests/fixtures/inbox-envelopes';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import {
  cookieAttributes,
  generatedTokenIn,
  postSignIn,
  sessionCookieOf,
} from '#tests/support/inbox-sign-in';
import { type RawAnswer, rawRequest } from '#tests/support/raw-request';
import { seedInbox } from '#tests/support/seed-inbox';
import {
  LIST_INBOX_ISSUES_FN,
  SIGN_IN_TO_INBOX_FN,
  SIGN_OUT_OF_INBOX_FN,
} from '#tests/support/server-function-paths';

const SECRET = 'secret-message-only-the-inbox-may-show';
const EVENT_ID = 'abcdef0123456789abcdef0123456789';
const TOKEN = 'correct-horse-battery-staple';

const seeded = () =>
  seedInbox([errorEnvelope({ eventId: EVENT_ID, type: 'TypeError', message: SECRET })]);

/** The production default, as `npm start` runs it: no token set, no loopback trust. */
const productionDefault = (extra: Record<string, string> = {}) =>
  startBuiltServer({
    MONITORING_INBOX_DIR: seeded(),
    MONITORING_INBOX_TRUST_LOOPBACK: 'false',
    ...extra,
  });

function get(
  server: BuiltServer,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  return rawRequest(`${server.url}${path}`, {
    headers: { 'user-agent': BROWSER_USER_AGENT, ...headers },
  });
}

/** A server-function call by GET, its input in the query, as Start's client makes GET calls. */
function callByGet(
  server: BuiltServer,
  path: string,
  data: unknown,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const payload = encodeURIComponent(JSON.stringify({ data, context: {} }));
  return get(server, `${path}?createServerFn&payload=${payload}`, {
    accept: 'application/json',
    ...headers,
  });
}

function postSignOut(server: BuiltServer, headers: Record<string, string>): Promise<RawAnswer> {
  return rawRequest(`${server.url}${SIGN_OUT_OF_INBOX_FN}?createServerFn`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: '',
  });
}

describe('production default: everyone signs in, with a token made for this run', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await productionDefault();
  });
  afterAll(() => server?.stop());

  it('prints a one-click sign-in link whose token is made for this run', () => {
    const line =
      server
        .output()
        .split('\n')
        .find((text) => text.includes('#token=')) ?? '';
    expect(line).toContain(`${server.url}/errors/sign-in#token=`);
    expect(line).toContain('made for this run');
    expect(line).toContain('MONITORING_INBOX_TOKEN');
    // 32 random bytes, base64url.
    expect(generatedTokenIn(line)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('shows this machine no event until it signs in', async () => {
    const list = await get(server, '/errors');
    expect(list.status).toBe(307);
    expect(list.headers.location).toBe('/errors/sign-in');
    expect((await get(server, `/errors/${EVENT_ID}`)).text).not.toContain(SECRET);
    expect((await callByGet(server, LIST_INBOX_ISSUES_FN, { page: 1 })).text).not.toContain(SECRET);
    expect((await get(server, '/errors/sign-in')).text).toMatch(/<form[^>]*method="post"/);
  });

  it('takes no sign-in by GET, even with the right token', async () => {
    const token = generatedTokenIn(server.output());
    const answer = await callByGet(server, SIGN_IN_TO_INBOX_FN, { token });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.text).not.toContain(SECRET);
  });

  it('signs in with the printed token', async () => {
    const response = await postSignIn(server.url, generatedTokenIn(server.output()));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/errors');
    const list = await get(server, '/errors', { cookie: sessionCookieOf(response) });
    expect(list.status).toBe(200);
    expect(list.text).toContain(SECRET);
  });

  it('makes another token on another start', async () => {
    const other = await productionDefault();
    try {
      expect(generatedTokenIn(other.output())).not.toBe(generatedTokenIn(server.output()));
      const stale = await postSignIn(other.url, generatedTokenIn(server.output()));
      expect(stale.headers.get('location')).toBe('/errors/sign-in?failed=1');
    } finally {
      await other.stop();
    }
  });
});

describe('guessing the token', () => {
  let server: BuiltServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('locks a client out after 5 wrong tokens: 429 with Retry-After, even for the right one', async () => {
    server = await productionDefault({ MONITORING_INBOX_TOKEN: TOKEN });
    for (let attempt = 1; attempt <= 5; attempt++) {
      const wrong = await postSignIn(server.url, `wrong-token-number-${attempt}`);
      expect(wrong.status).toBe(303);
      expect(wrong.headers.get('location')).toBe('/errors/sign-in?failed=1');
    }
    const sixth = await postSignIn(server.url, 'wrong-token-number-6');
    expect(sixth.status).toBe(429);
    const retryAfter = Number(sixth.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(200);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(await sixth.text()).toContain('Too many wrong tokens');

    const right = await postSignIn(server.url, TOKEN);
    expect(right.status).toBe(429);
    expect(right.headers.get('set-cookie')).toBeNull();
  });

  it('logs 200 wrong guesses in at most 21 lines, never the guesses', async () => {
    server = await productionDefault({ MONITORING_INBOX_TOKEN: TOKEN });
    const mark = server.output().length;
    for (let attempt = 0; attempt < 200; attempt++) {
      const answer = await postSignIn(server.url, `guess-${attempt}-of-the-token`);
      await answer.text();
    }
    const printed = await server.printedSince(mark);
    const lines = printed.split('\n').filter((line) => line.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(21);
    expect(printed).not.toMatch(/guess-\d+-of-the-token/);
  });
});

describe('sessions', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await productionDefault({ MONITORING_INBOX_TOKEN: TOKEN });
  });
  afterAll(() => server?.stop());

  const signedIn = async () => sessionCookieOf(await postSignIn(server.url, TOKEN));

  it('gives each sign-in a random id, not a value derived from the token', async () => {
    const response = await postSignIn(server.url, TOKEN);
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^inbox_session=[0-9a-f]{64};/);
    expect(cookieAttributes(cookie)).toEqual([
      'HttpOnly',
      'Max-Age=604800',
      'Path=/',
      'SameSite=Strict',
    ]);
    expect(sessionCookieOf(response)).not.toBe(await signedIn());
  });

  it('shows a sign-out button to a signed-in visitor', async () => {
    const html = (await get(server, '/errors', { cookie: await signedIn() })).text;
    expect(html).toMatch(/<form[^>]*aria-label="Sign out of the error inbox"/);
    expect(html).toContain(SIGN_OUT_OF_INBOX_FN);
  });

  it('ends the session on sign-out: the old cookie opens nothing any more', async () => {
    const session = await signedIn();
    const other = await signedIn();
    const answer = await postSignOut(server, { cookie: session, origin: server.url });
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe('/errors/sign-in');
    const ended = String(answer.headers['set-cookie']);
    expect(ended).toMatch(/^inbox_session=;/);
    expect(cookieAttributes(ended)).toEqual(['HttpOnly', 'Max-Age=0', 'Path=/', 'SameSite=Strict']);

    const replayed = await get(server, '/errors', { cookie: session });
    expect(replayed.status).toBe(307);
    expect(replayed.headers.location).toBe('/errors/sign-in');
    expect(replayed.text).not.toContain(SECRET);
    // Only that session: another sign-in stays.
    expect((await get(server, '/errors', { cookie: other })).status).toBe(200);
  });

  it('signs out only by a same-origin POST', async () => {
    const session = await signedIn();
    const byGet = await callByGet(server, SIGN_OUT_OF_INBOX_FN, {}, { cookie: session });
    expect(byGet.status).toBe(405);
    const crossSite = await postSignOut(server, {
      cookie: session,
      origin: 'https://evil.example',
    });
    expect(crossSite.status).toBe(403);
    expect((await get(server, '/errors', { cookie: session })).status).toBe(200);
  });
});
