/**
 * Visitors behind the docs' nginx recipe are clients of their own (TRUSTED_PROXIES, issue 32):
 * the app, and nginx in front of it with docs/production.md's own block and the recipe's
 * TRUSTED_PROXIES, run inside a network namespace of the test's own, so that nginx sees each
 * visitor's address (198.18.0.x) and writes it in X-Forwarded-For; the app sees nginx on
 * loopback. Before, every visitor was nginx: 12 wrong guesses from one locked the operator's
 * right token out for 5 minutes, and the tunnel's rate was one bucket for all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { errorEnvelope } from '#tests/fixtures/inbox-envelopes';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { textEnvelope } from '#tests/support/envelopes';
import { generatedTokenIn } from '#tests/support/inbox-sign-in';
import { createNetworkNamespace, type NetworkNamespace } from '#tests/support/network-namespace';
import {
  type Nginx,
  recommendedAppEnv,
  recommendedServerBlock,
  startNginx,
} from '#tests/support/nginx';
import { type RawAnswer, rawRequest } from '#tests/support/raw-request';
import { seedInbox } from '#tests/support/seed-inbox';
import { SIGN_IN_TO_INBOX_FN } from '#tests/support/server-function-paths';
import { until } from '#tests/support/wait-for';

const GUESSER = '198.18.0.11';
const OPERATOR = '198.18.0.12';
const FORGER = '198.18.0.20';
const FLOODER = '198.18.0.31';
const REPORTER = '198.18.0.32';
/** Any port is free in a namespace of our own. */
const NGINX_PORT = 18080;
const SECRET = 'secret-message-only-the-inbox-may-show';

let namespace: NetworkNamespace;
let app: BuiltServer;
let appPort: number;
let nginx: Nginx;
let token: string;

beforeAll(async () => {
  namespace = await createNetworkNamespace([GUESSER, OPERATOR, FORGER, FLOODER, REPORTER]);
  const inboxDir = seedInbox([errorEnvelope({ type: 'TypeError', message: SECRET })]);
  app = await startBuiltServer(
    {
      HOST: '127.0.0.1',
      MONITORING_INBOX_DIR: inboxDir,
      MONITORING_INBOX_TRUST_LOOPBACK: 'false',
      ...recommendedAppEnv(),
    },
    { namespace },
  );
  appPort = Number(new URL(app.url).port);
  nginx = await startNginx(
    NGINX_PORT,
    recommendedServerBlock(NGINX_PORT, `127.0.0.1:${appPort}`),
    namespace,
  );
  token = generatedTokenIn(app.output());
}, 60_000);
afterAll(async () => {
  await nginx?.stop();
  await app?.stop();
  await namespace?.close();
});

/** A request from `from`, through nginx (the recipe) or straight to the app. */
function request(
  from: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array } = {},
  via: 'nginx' | 'app' = 'nginx',
): Promise<RawAnswer> {
  const port = via === 'nginx' ? NGINX_PORT : appPort;
  return rawRequest(`http://127.0.0.1:${port}${path}`, {
    ...init,
    headers: { 'user-agent': BROWSER_USER_AGENT, ...init.headers },
    connect: () => namespace.connect(from, '127.0.0.1', port),
    timeoutMs: 15_000,
  });
}

/** The sign-in form's post, as a browser on that origin sends it. */
function signIn(
  from: string,
  typed: string,
  headers: Record<string, string> = {},
  via: 'nginx' | 'app' = 'nginx',
) {
  const origin = `http://127.0.0.1:${via === 'nginx' ? NGINX_PORT : appPort}`;
  return request(
    from,
    `${SIGN_IN_TO_INBOX_FN}?createServerFn`,
    {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin,
        'sec-fetch-site': 'same-origin',
        ...headers,
      },
      body: new URLSearchParams({ token: typed }).toString(),
    },
    via,
  );
}

/** What a sign-in answered: signed in (a session), refused (a wrong token) or locked out. */
function outcome(answer: RawAnswer): string {
  if (answer.status === 303 && answer.headers.location === '/errors') return 'signed in';
  if (answer.status === 303 && answer.headers.location === '/errors/sign-in?failed=1') {
    return 'wrong';
  }
  return String(answer.status);
}

async function readsTheInbox(signedIn: RawAnswer, from: string): Promise<boolean> {
  const cookie = String(signedIn.headers['set-cookie'] ?? '').split(';')[0] as string;
  const list = await request(from, '/errors', { headers: { cookie } });
  return list.status === 200 && list.text.includes(SECRET);
}

describe('the sign-in lockout, per visitor behind nginx', () => {
  it('locks out the visitor who guessed 12 times, and another visitor’s right token still signs in', async () => {
    const guesses: string[] = [];
    for (let i = 0; i < 12; i += 1) guesses.push(outcome(await signIn(GUESSER, `wrong-${i}`)));
    expect(guesses).toEqual([...Array(5).fill('wrong'), ...Array(7).fill('429')]);

    const operator = await signIn(OPERATOR, token);
    expect(outcome(operator)).toBe('signed in');
    expect(await readsTheInbox(operator, OPERATOR)).toBe(true);

    // The guesser is still locked out, right token or not.
    expect(outcome(await signIn(GUESSER, token))).toBe('429');
    const printed = await app.printedSince(0);
    expect(printed).toContain(`wrong token from ${GUESSER} (5 in 15 min: locked out for 5 min)`);
    expect(printed).not.toMatch(/wrong token from 127\.0\.0\.1/);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy: a forger is itself', async () => {
    const mark = app.output().length;
    // Straight to the app, each guess naming another client, the operator among them.
    const forged = [OPERATOR, '203.0.113.1', '203.0.113.2', '127.0.0.1', '::1'];
    const guesses: string[] = [];
    for (const address of forged) {
      guesses.push(outcome(await signIn(FORGER, 'wrong', { 'x-forwarded-for': address }, 'app')));
    }
    expect(guesses).toEqual(Array(5).fill('wrong'));
    // Locked out under its own address, whatever it claims now.
    const claimed = await signIn(FORGER, token, { 'x-forwarded-for': '203.0.113.99' }, 'app');
    expect(outcome(claimed)).toBe('429');
    const printed = await app.printedSince(mark);
    expect(printed).toContain(`wrong token from ${FORGER} (5 in 15 min: locked out for 5 min)`);
    expect(printed).not.toMatch(
      /wrong token from (198\.18\.0\.12|203\.0\.113|127\.0\.0\.1|0:0:0:0)/,
    );

    // Through nginx, a visitor's own X-Forwarded-For is what nginx appends to: still the visitor.
    for (let i = 0; i < 5; i += 1) {
      expect(outcome(await signIn(GUESSER, 'wrong', { 'x-forwarded-for': OPERATOR }))).toBe('429');
    }
    // And the operator, named by both, was never counted.
    const operator = await signIn(OPERATOR, token);
    expect(outcome(operator)).toBe('signed in');
    expect(await readsTheInbox(operator, OPERATOR)).toBe(true);
  });
});

describe('the tunnel, per visitor behind nginx', () => {
  /** An envelope the tunnel admits (its rate is taken) and the inbox refuses at once, as Relay would. */
  const refused = Buffer.from(`${JSON.stringify({ dsn: LOCAL_INBOX_DSN })}\nnot an item header\n`);
  const post = (from: string, body: Uint8Array) =>
    request(from, '/monitoring?o=0&p=1', {
      method: 'POST',
      headers: { 'content-type': 'application/x-sentry-envelope' },
      body,
    });

  it('gives each visitor its own rate: one past it gets 429, another’s reports are stored', async () => {
    const mark = app.output().length;
    // 1,000 envelopes of burst, then 100 a second: 8 posts at a time until the first 429.
    let limited = false;
    let flooding = true;
    const statuses = new Map<number, number>();
    const flooder = async () => {
      while (flooding) {
        const { status } = await post(FLOODER, refused);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status === 429) limited = true;
      }
    };
    const flood = Array.from({ length: 8 }, flooder);
    try {
      await until(
        () => `a 429 for the flooder: ${JSON.stringify([...statuses])}`,
        () => limited,
        { timeoutMs: 90_000, everyMs: 50 },
      );
      // While the flooder keeps its bucket empty, another visitor's reports are stored.
      const reports: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        reports.push((await post(REPORTER, textEnvelope(LOCAL_INBOX_DSN))).status);
      }
      expect(reports).toEqual(Array(5).fill(200));
    } finally {
      flooding = false;
      await Promise.all(flood);
    }
    const printed = await app.printedSince(mark);
    expect(printed).toContain(`client ${FLOODER} is over its rate into the local inbox`);
    expect(printed).not.toContain(`client ${REPORTER} is over its rate`);
    expect(printed).not.toContain('client 127.0.0.1 is over its rate');
  }, 120_000);
});
