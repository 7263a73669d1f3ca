/**
 * The private inbox behind a real nginx on this machine (issue 22, finding 1). nginx connects
 * from 127.0.0.1, and its bare default (`proxy_pass` alone) sends `Host: 127.0.0.1:<port>` and
 * no X-Forwarded-For: every visitor looks like the operator at the machine. So in the
 * production default nothing of the inbox may be read or cleared through nginx without a sign-in,
 * with the config docs/production.md recommends and with the bare default; and signing in through
 * the recommended one works, without the token reaching nginx's access log. With
 * MONITORING_INBOX_TRUST_LOOPBACK=true as well, a request from a trusted proxy (TRUSTED_PROXIES) is
 * never "this machine": the bare default, which sends no forwarding header, stays private too.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorEnvelope } from '#tests/fixtures/inbox-envelopes';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { startBuiltServer } from '#tests/support/built-server';
import { generatedTokenIn, postSignIn, sessionCookieOf } from '#tests/support/inbox-sign-in';
import {
  bareServerBlock,
  freePort,
  type Nginx,
  recommendedAppEnv,
  recommendedServerBlock,
  startNginx,
} from '#tests/support/nginx';
import { rawRequest } from '#tests/support/raw-request';
import { seedInbox } from '#tests/support/seed-inbox';
import { CLEAR_INBOX_FN, LIST_INBOX_ISSUES_FN } from '#tests/support/server-function-paths';

const SECRET = 'secret-message-only-the-inbox-may-show';
const EVENT_ID = 'abcdef0123456789abcdef0123456789';

/** The app with a seeded inbox, and both nginx configs in front of it. */
async function appBehindNginx(env: Record<string, string>) {
  const inboxDir = seedInbox([
    errorEnvelope({ eventId: EVENT_ID, type: 'TypeError', message: SECRET }),
  ]);
  const app = await startBuiltServer({
    MONITORING_INBOX_DIR: inboxDir,
    // As the recipe starts the app: TRUSTED_PROXIES names nginx's loopback.
    ...recommendedAppEnv(),
    ...env,
  });
  const upstream = new URL(app.url).host;
  const recommendedPort = await freePort();
  const recommended = await startNginx(
    recommendedPort,
    recommendedServerBlock(recommendedPort, upstream),
  );
  const barePort = await freePort();
  const bare = await startNginx(barePort, bareServerBlock(barePort, upstream));
  return { app, inboxDir, proxies: { recommended, bare } };
}

function get(origin: string, path: string, headers: Record<string, string> = {}) {
  return rawRequest(`${origin}${path}`, {
    headers: { 'user-agent': BROWSER_USER_AGENT, ...headers },
  });
}

/** Everything a visitor without a session could try through `proxy`, none of it may work. */
async function expectNothingReadableOrCleared(proxy: Nginx, inboxDir: string) {
  const list = await get(proxy.url, '/errors');
  expect(list.status).toBe(307);
  expect(list.headers.location).toBe('/errors/sign-in');
  expect(list.text).not.toContain(SECRET);

  const detail = await get(proxy.url, `/errors/${EVENT_ID}`);
  expect(detail.text).not.toContain(SECRET);

  const payload = encodeURIComponent(JSON.stringify({ data: { page: 1 }, context: {} }));
  const call = await get(proxy.url, `${LIST_INBOX_ISSUES_FN}?createServerFn&payload=${payload}`);
  expect(call.text).not.toContain(SECRET);

  const stored = readdirSync(inboxDir).length;
  const clear = await rawRequest(`${proxy.url}${CLEAR_INBOX_FN}?createServerFn`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: proxy.url },
    body: 'confirm=clear',
  });
  expect(clear.headers.location ?? '').not.toMatch(/cleared=/);
  expect(readdirSync(inboxDir).length).toBe(stored);
}

describe('behind nginx, production default', () => {
  let setup: Awaited<ReturnType<typeof appBehindNginx>>;

  beforeAll(async () => {
    setup = await appBehindNginx({ MONITORING_INBOX_TRUST_LOOPBACK: 'false' });
  });
  afterAll(async () => {
    await setup?.proxies.recommended.stop();
    await setup?.proxies.bare.stop();
    await setup?.app.stop();
  });

  it.each(['recommended', 'bare'] as const)(
    'reads and clears nothing through the %s config without a sign-in',
    async (config) => {
      await expectNothingReadableOrCleared(setup.proxies[config], setup.inboxDir);
    },
  );

  it('signs in through the recommended config, and the token stays out of its access log', async () => {
    const proxy = setup.proxies.recommended;
    const token = generatedTokenIn(setup.app.output());
    // What a browser's form post carries: its Origin, same-origin.
    const response = await postSignIn(proxy.url, token, {
      origin: proxy.url,
      'sec-fetch-site': 'same-origin',
      'user-agent': BROWSER_USER_AGENT,
    });
    expect(response.status).toBe(303);
    const list = await get(proxy.url, '/errors', { cookie: sessionCookieOf(response) });
    expect(list.status).toBe(200);
    expect(list.text).toContain(SECRET);
    expect(proxy.accessLog()).toContain('POST /_server/');
    expect(proxy.accessLog()).not.toContain(token);
  });
});

describe('behind nginx in TRUSTED_PROXIES, with MONITORING_INBOX_TRUST_LOOPBACK=true', () => {
  let setup: Awaited<ReturnType<typeof appBehindNginx>>;

  beforeAll(async () => {
    setup = await appBehindNginx({ MONITORING_INBOX_TRUST_LOOPBACK: 'true' });
  });
  afterAll(async () => {
    await setup?.proxies.recommended.stop();
    await setup?.proxies.bare.stop();
    await setup?.app.stop();
  });

  it.each(['recommended', 'bare'] as const)(
    'reads and clears nothing through the %s config without a sign-in',
    async (config) => {
      await expectNothingReadableOrCleared(setup.proxies[config], setup.inboxDir);
    },
  );

  it('asks this machine to sign in too: a loopback peer may be the proxy', async () => {
    const list = await get(setup.app.url, '/errors');
    expect(list.status).toBe(307);
    expect(list.text).not.toContain(SECRET);
    expect(setup.app.output()).toContain(
      '/errors is open to requests from this machine but not from TRUSTED_PROXIES',
    );
  });
});
