/**
 * Alerts over real HTTP against the production build, with a webhook sink on 127.0.0.1
 * (tests/support/webhook-sink.ts): a new issue posts once with a link that opens it; repeats
 * post nothing; a regression says so; a failing hook is retried until it recovers, /health
 * says so meanwhile, and an alert left pending when the server stops is sent after the
 * restart; two workers send once; the hook's secret path and query never show. By email too,
 * through a real SMTP server on 127.0.0.1 (tests/support/smtp-sink.ts), from the ingest thread of
 * the built server; and an ignored issue whose mute ends alerts as a regression.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import {
  type BuiltServer,
  runBuiltServerToExit,
  startBuiltServer,
  testEnv,
} from '#tests/support/built-server';
import { eventId, send, textEnvelope } from '#tests/support/envelopes';
import { SEND_TEST_ALERT_FN, TRIAGE_ISSUES_FN } from '#tests/support/server-function-paths';
import { startSmtpSink } from '#tests/support/smtp-sink';
import { until, waitFor } from '#tests/support/wait-for';
import { type ReceivedPost, startWebhookSink, type WebhookSink } from '#tests/support/webhook-sink';

const SECRET_PATH = '/hooks/T0001/B0002/secret-path-4f9a';
const SECRET_QUERY = 'token=secret-query-77c1';

let sink: WebhookSink;
const servers: BuiltServer[] = [];

beforeAll(async () => {
  sink = await startWebhookSink();
});
afterAll(() => sink.close());
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
  sink.answerWith(() => ({ status: 200 }));
});

const hookUrl = () => `${sink.origin}${SECRET_PATH}?${SECRET_QUERY}`;

async function start(extra: Record<string, string> = {}): Promise<BuiltServer> {
  const server = await startBuiltServer({ MONITORING_ALERT_WEBHOOK_URL: hookUrl(), ...extra });
  servers.push(server);
  return server;
}

/** Reports an error through the tunnel, as the browser SDK would; its message names its issue. */
async function report(server: BuiltServer, message: string): Promise<void> {
  const answer = await send(`${server.url}/monitoring?o=0&p=1`, {
    body: textEnvelope(LOCAL_INBOX_DSN, eventId(), message),
  });
  expect(answer.status).toBe(200);
}

const textOf = (post: ReceivedPost | undefined) => String(post?.body.text ?? '');

/** Posts received for an issue whose message is `message`, in order. */
const postsAbout = (message: string) =>
  sink.posts.filter(
    (post) => (post.body.issue as { title?: string } | undefined)?.title === message,
  );

async function health(server: BuiltServer): Promise<{ status: string; reasons: string[] }> {
  return (await fetch(`${server.url}/health`)).json() as Promise<{
    status: string;
    reasons: string[];
  }>;
}

const page = async (server: BuiltServer, path: string) =>
  (await fetch(`${server.url}${path}`, { headers: { 'user-agent': BROWSER_USER_AGENT } })).text();

const formPost = (server: BuiltServer, path: string, body: string) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.url },
    body,
    redirect: 'manual',
  });

describe('alerts to a webhook', { timeout: 90_000 }, () => {
  it('a new issue posts once, with a link that opens it; repeats post nothing; a regression says so', async () => {
    const server = await start();
    expect(server.output()).toContain(
      `[monitoring] alerts to webhook ${new URL(sink.origin).host} on new and regressed issues; alert links will be paths`,
    );
    const before = sink.posts.length;
    await report(server, 'alerts-first');
    const [first] = (await sink.waitForPosts(before + 1)).slice(before);
    expect(first?.path).toBe(`${SECRET_PATH}?${SECRET_QUERY}`);
    expect(textOf(first)).toBe('New issue: alerts-first · 1 event · /errors/issues/1');
    expect(first?.body.content).toBe(first?.body.text);
    const issue = first?.body.issue as { id: number; link: string; eventCount: number };
    expect(issue).toMatchObject({ id: 1, link: '/errors/issues/1', eventCount: 1 });
    expect(await page(server, issue.link)).toContain('alerts-first');

    for (let n = 0; n < 20; n++) await report(server, 'alerts-first');
    // A barrier: a new issue after the repeats. Its alert comes after any they could have raised.
    await report(server, 'alerts-barrier');
    await until("the barrier issue's alert", () => postsAbout('alerts-barrier').length === 1, {
      timeoutMs: 20_000,
    });
    expect(postsAbout('alerts-first')).toHaveLength(1);

    expect((await formPost(server, TRIAGE_ISSUES_FN, 'action=resolve&issueId=1')).status).toBe(303);
    await report(server, 'alerts-first');
    await until("the regression's alert", () => postsAbout('alerts-first').length === 2, {
      timeoutMs: 20_000,
    });
    expect(textOf(postsAbout('alerts-first')[1])).toBe(
      'Regressed: alerts-first · 22 events · /errors/issues/1',
    );

    // The issue's page lists its alerts, the channel by its host: the regression's as sent once
    // the sender has heard the webhook's answer, just after the post arrived.
    const regressionSent = `Regressed to webhook ${new URL(sink.origin).host}: sent`;
    const issuePage = await waitFor(
      'the issue page to list the regression alert as sent',
      async () => {
        const html = await page(server, '/errors/issues/1');
        return html.includes(regressionSent) ? html : undefined;
      },
    );
    expect(issuePage).toContain(regressionSent);
    expect(issuePage).toContain(`New issue to webhook ${new URL(sink.origin).host}: sent`);

    // "Send a test alert", a form post under the clear form's rules.
    const listed = await page(server, '/errors');
    expect(listed).toContain('Send a test alert');
    const refused = await fetch(`${server.url}${SEND_TEST_ALERT_FN}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: 'https://elsewhere.example',
      },
      body: 'send=test',
      redirect: 'manual',
    });
    expect(refused.status).toBe(403);
    const count = sink.posts.length;
    const sent = await formPost(server, SEND_TEST_ALERT_FN, 'send=test');
    expect(sent.status).toBe(303);
    const [test] = (await sink.waitForPosts(count + 1)).slice(count);
    expect(test?.body.kind).toBe('test');
    expect(textOf(test)).toContain('Test alert from the error inbox');

    // The hook's secret path and query are in no log line, no page and not in /health.
    const shown = [server.output(), issuePage, listed, JSON.stringify(await health(server))].join(
      '\n',
    );
    expect(shown).not.toContain('secret-path-4f9a');
    expect(shown).not.toContain('secret-query-77c1');
  });

  it('a hook answering 503 gets the alert once it recovers; /health is degraded meanwhile', async () => {
    const failures = 3;
    let answered = 0;
    sink.answerWith(() => (++answered <= failures ? { status: 503 } : { status: 200 }));
    const server = await start();
    await report(server, 'alerts-503');
    await until("the webhook's first answer", () => answered >= 1, { timeoutMs: 20_000 });
    const failing = `alerts-failing: webhook ${new URL(sink.origin).host} (answered 503)`;
    await until('/health to name the failing webhook', async () =>
      (await health(server)).reasons.includes(failing),
    );
    expect((await health(server)).status).toBe('degraded');
    await until('the webhook to be tried until it answers 200', () => answered === failures + 1, {
      timeoutMs: 30_000,
    });
    const delivered = postsAbout('alerts-503');
    expect(delivered).toHaveLength(failures + 1);
    await until(
      'the alert to be stored as sent',
      () => stored(server, 'alerts-503')?.state === 'sent',
      { timeoutMs: 10_000 },
    );
    expect(stored(server, 'alerts-503')).toEqual({ state: 'sent', attempts: failures + 1 });
    await until('/health to be ok again', async () => (await health(server)).status === 'ok');
  });

  it('an alert still pending when the server stops is sent after the restart', async () => {
    sink.answerWith(() => ({ status: 503 }));
    const inboxDir = testEnv().MONITORING_INBOX_DIR as string;
    const first = await start({ MONITORING_INBOX_DIR: inboxDir });
    await report(first, 'alerts-restart');
    // Refused and noted: pending, to be tried again, when the server stops.
    await until(
      'the alert to be stored as refused with 503',
      () => stored(first, 'alerts-restart')?.reason === 'answered 503',
      { timeoutMs: 20_000 },
    );
    await first.stop();
    servers.splice(servers.indexOf(first), 1);
    const refused = postsAbout('alerts-restart').length;

    sink.answerWith(() => ({ status: 200 }));
    const second = await start({ MONITORING_INBOX_DIR: inboxDir });
    await until(
      'the restarted server to send the pending alert',
      () => stored(second, 'alerts-restart')?.state === 'sent',
      { timeoutMs: 30_000 },
    );
    expect(postsAbout('alerts-restart')).toHaveLength(refused + 1);
  });

  it('with two workers, a new issue alerts once', async () => {
    const server = await start({ WEB_CONCURRENCY: '2' });
    await report(server, 'alerts-two-workers');
    await until("the new issue's alert", () => postsAbout('alerts-two-workers').length === 1, {
      timeoutMs: 20_000,
    });
    // A barrier, as above: a second issue's alert comes after any double of the first.
    await report(server, 'alerts-two-workers-barrier');
    await until(
      "the barrier issue's alert",
      () => postsAbout('alerts-two-workers-barrier').length === 1,
      { timeoutMs: 20_000 },
    );
    await until(
      "the barrier issue's alert to be stored as sent",
      () => stored(server, 'alerts-two-workers-barrier')?.state === 'sent',
      { timeoutMs: 10_000 },
    );
    expect(postsAbout('alerts-two-workers')).toHaveLength(1);
    expect(stored(server, 'alerts-two-workers')).toEqual({ state: 'sent', attempts: 1 });
  });

  it('a bad MONITORING_ALERT_WEBHOOK_URL stops the server, named without its secret', async () => {
    const { code, output } = await runBuiltServerToExit({
      MONITORING_ALERT_WEBHOOK_URL: `${hookUrl()},ftp://files.example/secret-path-4f9a`,
    });
    expect(code).not.toBe(0);
    expect(output).toContain(
      'MONITORING_ALERT_WEBHOOK_URL: entry 2 (files.example) must be an http:// or https:// URL',
    );
    expect(output).not.toContain('secret-path-4f9a');
  });
});

describe('alerts by email, and when a mute ends', { timeout: 90_000 }, () => {
  it('a new issue gives one post and one email with its link; repeats give none; a regression one more', async () => {
    const smtp = await startSmtpSink({ auth: { user: 'alerts', password: 'smtp-secret-93kq' } });
    try {
      const server = await start({
        MONITORING_SMTP_URL: smtp.url({ user: 'alerts', password: 'smtp-secret-93kq' }),
        MONITORING_ALERT_EMAIL_TO: 'ops@example.com,dev@example.com',
        MONITORING_ALERT_EMAIL_FROM: 'errors@example.com',
      });
      expect(server.output()).toContain(`email 127.0.0.1`);
      const mailsAbout = (message: string) =>
        smtp.received.filter((mail) => mail.subject.endsWith(`: ${message}`));

      await report(server, 'alerts-by-email');
      await until("the new issue's mail", () => mailsAbout('alerts-by-email').length === 1, {
        timeoutMs: 20_000,
      });
      await until(
        "the new issue's webhook post",
        () => postsAbout('alerts-by-email').length === 1,
        { timeoutMs: 20_000 },
      );
      const [mail] = mailsAbout('alerts-by-email');
      expect(mail?.subject).toBe('New issue: alerts-by-email');
      expect(mail?.envelope.to).toEqual(['ops@example.com', 'dev@example.com']);
      expect(mail?.from.address).toBe('errors@example.com');
      expect(mail?.user).toBe('alerts');
      expect(mail?.text).toContain('/errors/issues/1');
      expect(await page(server, '/errors/issues/1')).toContain('alerts-by-email');

      for (let n = 0; n < 20; n++) await report(server, 'alerts-by-email');
      await report(server, 'alerts-by-email-barrier');
      await until(
        "the barrier issue's mail",
        () => mailsAbout('alerts-by-email-barrier').length === 1,
        { timeoutMs: 20_000 },
      );
      expect(mailsAbout('alerts-by-email')).toHaveLength(1);

      // A mail server that answers 451 (try again later) gets the regression once it recovers.
      smtp.refusal = { at: 'MAIL FROM', code: 451, message: 'Try again later' };
      expect((await formPost(server, TRIAGE_ISSUES_FN, 'action=resolve&issueId=1')).status).toBe(
        303,
      );
      await report(server, 'alerts-by-email');
      await until(
        "the regression's webhook post",
        () => postsAbout('alerts-by-email').length === 2,
        { timeoutMs: 20_000 },
      );
      await until("the issue page to show the mail server's refusal", async () =>
        (await page(server, '/errors/issues/1')).includes('451 Try again later'),
      );
      smtp.refusal = undefined;
      await until(
        "the regression's mail, once the mail server accepts",
        () => mailsAbout('alerts-by-email').length === 2,
        { timeoutMs: 30_000 },
      );
      expect(mailsAbout('alerts-by-email')[1]?.subject).toBe('Regressed: alerts-by-email');

      const shown = [server.output(), await page(server, '/errors/issues/1')].join('\n');
      expect(shown).not.toContain('smtp-secret-93kq');
      expect(JSON.stringify(await health(server))).not.toContain('smtp-secret-93kq');
    } finally {
      await smtp.close();
    }
  });

  it('an issue ignored until 10 more events alerts as a regression at the tenth, once', async () => {
    const server = await start();
    await report(server, 'alerts-muted');
    await until("the new issue's alert", () => postsAbout('alerts-muted').length === 1, {
      timeoutMs: 20_000,
    });
    expect(
      (await formPost(server, TRIAGE_ISSUES_FN, 'action=ignore-10-events&issueId=1')).status,
    ).toBe(303);
    for (let n = 0; n < 9; n++) await report(server, 'alerts-muted');
    await report(server, 'alerts-muted-barrier');
    await until(
      "the barrier issue's alert",
      () => postsAbout('alerts-muted-barrier').length === 1,
      { timeoutMs: 20_000 },
    );
    expect(postsAbout('alerts-muted')).toHaveLength(1);

    await report(server, 'alerts-muted');
    await until(
      "the tenth event's regression alert",
      () => postsAbout('alerts-muted').length === 2,
      { timeoutMs: 20_000 },
    );
    expect(textOf(postsAbout('alerts-muted')[1])).toBe(
      'Regressed: alerts-muted · 11 events · /errors/issues/1',
    );
    for (let n = 0; n < 3; n++) await report(server, 'alerts-muted');
    await report(server, 'alerts-muted-second-barrier');
    await until(
      "the second barrier issue's alert",
      () => postsAbout('alerts-muted-second-barrier').length === 1,
      { timeoutMs: 20_000 },
    );
    expect(postsAbout('alerts-muted')).toHaveLength(2);
  });
});

/** The delivery of the alert about the issue titled `message`, read from the inbox's file. */
function stored(
  server: BuiltServer,
  message: string,
): { state: string; attempts: number; reason?: string } | undefined {
  const dir = /errors are kept in (\S+);/.exec(server.output())?.[1];
  if (!dir) throw new Error('the start line names no inbox directory');
  const db = new Database(join(dir, 'inbox.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare(
        `SELECT d.state, d.attempts, d.reason FROM alert_deliveries d JOIN alerts a ON a.id = d.alert_id
         JOIN issues i ON i.id = a.issue_id WHERE i.title = ? ORDER BY d.id LIMIT 1`,
      )
      .get(message) as { state: string; attempts: number; reason: string | null } | undefined;
    return (
      row && {
        state: row.state,
        attempts: row.attempts,
        ...(row.reason ? { reason: row.reason } : {}),
      }
    );
  } finally {
    db.close();
  }
}
