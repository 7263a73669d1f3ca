/**
 * Who may read and clear the local inbox in production: visitors who signed in (with
 * MONITORING_INBOX_TOKEN, or the token made for the run), and with
 * MONITORING_INBOX_TRUST_LOOPBACK requests from this machine. Everyone else sees no event text,
 * whether they ask for the page or call its server functions directly. The sign-in itself
 * (POST only, lockout, sessions, the generated token's link) is tests/http/inbox-sign-in.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { errorEnvelope } from '#tests/fixtures/inbox-envelopes';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { textEnvelope } from '#tests/support/envelopes';
import { cookieAttributes, generatedTokenIn, postSignIn } from '#tests/support/inbox-sign-in';
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

/** A GET over node:http, so that a test can send a Host of its own; redirects not followed. */
function get(
  server: BuiltServer,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  return rawRequest(`${server.url}${path}`, {
    headers: { 'user-agent': BROWSER_USER_AGENT, ...headers },
  });
}

/** The list server function called over HTTP, as the browser does after hydration. */
function callList(server: BuiltServer, headers: Record<string, string> = {}) {
  const payload = encodeURIComponent(JSON.stringify({ data: { page: 1 }, context: {} }));
  return get(server, `${LIST_INBOX_ISSUES_FN}?createServerFn&payload=${payload}`, {
    accept: 'application/json',
    ...headers,
  });
}

describe('production with MONITORING_INBOX_TRUST_LOOPBACK=true: this machine needs no sign-in', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer({
      MONITORING_INBOX_DIR: seeded(),
      MONITORING_INBOX_TRUST_LOOPBACK: 'true',
    });
  });
  afterAll(() => server?.stop());

  it('says so at start', () => {
    expect(server.output()).toContain(
      '[monitoring] /errors is open to requests from this machine (MONITORING_INBOX_TRUST_LOOPBACK: no proxy in front) and to visitors who sign in; one-click sign-in: ',
    );
  });

  it('shows the inbox to a request from this machine', async () => {
    const response = await get(server, '/errors');
    expect(response.status).toBe(200);
    expect(response.text).toContain(SECRET);
    const detail = await get(server, `/errors/${EVENT_ID}`);
    expect(detail.headers.location).toBe(`/errors/issues/1?event=${EVENT_ID}`);
    expect((await get(server, detail.headers.location as string)).text).toContain(SECRET);
    const call = await callList(server);
    expect(call.status).toBe(200);
    expect(call.text).toContain(SECRET);
  });

  it.each([
    ['a request a proxy on this machine forwarded', { 'x-forwarded-for': '203.0.113.7' }],
    ['a request with a Forwarded header', { forwarded: 'for=203.0.113.7' }],
    ['a rebound DNS name (Host is not loopback)', { host: 'evil.example' }],
  ])('shows %s no event, only the sign-in form', async (_name, headers) => {
    const list = await get(server, '/errors', headers);
    expect(list.status).toBe(307);
    expect(list.headers.location).toBe('/errors/sign-in');

    const detail = await get(server, `/errors/${EVENT_ID}`, headers);
    expect(detail.text).not.toContain(SECRET);

    const signIn = await get(server, '/errors/sign-in', headers);
    const html = signIn.text;
    expect(html).toMatch(/<form[^>]*method="post"/);
    expect(html).not.toContain(SECRET);

    const call = await callList(server, headers);
    expect(call.text).not.toContain(SECRET);
  });

  it('still takes the browser reports that the tunnel stores', async () => {
    const response = await rawRequest(`${server.url}/monitoring?o=0&p=1`, {
      method: 'POST',
      headers: { 'x-forwarded-for': '203.0.113.7', host: 'app.example.com' },
      body: textEnvelope(LOCAL_INBOX_DSN, 'f'.repeat(32), 'reported from afar'),
    });
    expect(response.status).toBe(200);
    expect((await get(server, '/errors')).text).toContain('reported from afar');
  });
});

describe('production with MONITORING_INBOX_TOKEN', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer({
      MONITORING_INBOX_DIR: seeded(),
      MONITORING_INBOX_TOKEN: TOKEN,
      // The production default (the harness trusts loopback).
      MONITORING_INBOX_TRUST_LOOPBACK: 'false',
    });
  });
  afterAll(() => server?.stop());

  const signIn = (token: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${SIGN_IN_TO_INBOX_FN}?createServerFn`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ token }).toString(),
      redirect: 'manual',
    });

  it('says so at start', () => {
    expect(server.output()).toContain(
      '[monitoring] /errors is open to visitors who sign in with MONITORING_INBOX_TOKEN',
    );
  });

  it('sends a visitor who has not signed in to the form, even from this machine', async () => {
    const list = await get(server, '/errors');
    expect(list.status).toBe(307);
    expect(list.headers.location).toBe('/errors/sign-in');
    const form = (await get(server, '/errors/sign-in')).text;
    expect(form).toMatch(/<form[^>]*method="post"/);
    expect(form).not.toContain(SECRET);
    expect((await callList(server)).text).not.toContain(SECRET);
  });

  it('refuses a wrong token, logs it once without the token, and sets no cookie', async () => {
    const response = await signIn('wrong-token-wrong-token');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/errors/sign-in?failed=1');
    expect(response.headers.get('set-cookie')).toBeNull();
    await server.stderrBarrier();
    const lines = server.output().split('\n');
    expect(lines.filter((line) => line.includes('[inbox] sign-in refused'))).toHaveLength(1);
    expect(server.output()).not.toContain('wrong-token-wrong-token');
    const page = (await get(server, '/errors/sign-in?failed=1')).text;
    expect(page).toContain('That is not the inbox token.');
  });

  it('signs in with the token: an HttpOnly, SameSite=Strict cookie that opens the inbox', async () => {
    const response = await signIn(TOKEN);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/errors');
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^inbox_session=[0-9a-f]{64};/);
    expect(cookieAttributes(cookie)).toEqual(
      expect.arrayContaining(['HttpOnly', 'Path=/', 'SameSite=Strict']),
    );
    expect(cookie).not.toContain(TOKEN);
    const session = cookie.split(';')[0] as string;

    const list = await get(server, '/errors', { cookie: session });
    expect(list.status).toBe(200);
    expect(list.text).toContain(SECRET);
    expect((await callList(server, { cookie: session })).text).toContain(SECRET);
    // A forged or stale value opens nothing.
    const forged = await get(server, '/errors', { cookie: `inbox_session=${'0'.repeat(64)}` });
    expect(forged.status).toBe(307);
  });

  it('refuses a sign-in posted from another site', async () => {
    const response = await signIn(TOKEN, { origin: 'https://evil.example' });
    expect(response.status).toBe(403);
    expect(response.headers.get('set-cookie')).toBeNull();
    await response.text();
  });
});

describe('development', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer({ NODE_ENV: 'development', MONITORING_INBOX_DIR: seeded() });
  });
  afterAll(() => server?.stop());

  it('keeps the inbox open, and says so', async () => {
    expect(server.output()).toContain('[monitoring] /errors is open to anyone');
    const response = await get(server, '/errors', { 'x-forwarded-for': '203.0.113.7' });
    expect(response.status).toBe(200);
    expect(response.text).toContain(SECRET);
  });
});

describe('state-changing requests with PUBLIC_URL set', () => {
  let server: BuiltServer;
  let clearAction: string;

  beforeAll(async () => {
    server = await startBuiltServer({
      MONITORING_INBOX_DIR: seeded(),
      PUBLIC_URL: 'https://app.example.com',
    });
    const confirm = (await get(server, '/errors?confirm=clear')).text;
    const form = /<form[^>]*aria-label="Clear the inbox"[^>]*>/.exec(confirm)?.[0] ?? '';
    clearAction = (/action="([^"]+)"/.exec(form)?.[1] ?? '').replaceAll('&amp;', '&');
    expect(clearAction).toMatch(/^\/_server\//);
  });
  afterAll(() => server?.stop());

  const clear = (headers: Record<string, string>) =>
    rawRequest(`${server.url}${clearAction}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: 'confirm=clear',
    });

  it('refuses a rebound DNS name: Host and Origin both the attacker’s', async () => {
    const response = await clear({
      host: 'rebound.evil.example',
      origin: 'http://rebound.evil.example',
    });
    expect(response.status).toBe(403);
    expect(response.text).toBe('Host not allowed');
    expect((await get(server, '/errors')).text).toContain(SECRET);
  });

  it('forbids framing the confirmation, so a click elsewhere cannot press its button', async () => {
    const response = await get(server, '/errors?confirm=clear');
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response.headers['x-frame-options']).toBe('DENY');
  });

  it('keeps the session cookie to https, signing in and out', async () => {
    const signedIn = await postSignIn(server.url, generatedTokenIn(server.output()), {
      origin: server.url,
    });
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^inbox_session=[0-9a-f]{64};/);
    expect(cookieAttributes(cookie)).toContain('Secure');
    const signedOut = await rawRequest(`${server.url}${SIGN_OUT_OF_INBOX_FN}?createServerFn`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: cookie.split(';')[0] as string,
        origin: server.url,
      },
      body: '',
    });
    expect(signedOut.status).toBe(303);
    const ended = String(signedOut.headers['set-cookie']);
    expect(ended).toMatch(/^inbox_session=;/);
    expect(cookieAttributes(ended)).toEqual(expect.arrayContaining(['Max-Age=0', 'Secure']));
  });

  it('lets the operator on this machine clear it', async () => {
    const response = await clear({ origin: server.url });
    expect(response.status).toBe(303);
    expect(response.headers.location).toMatch(/^\/errors\?cleared=\d+$/);
    expect((await get(server, '/errors')).text).not.toContain(SECRET);
  });
});
