/**
 * The email channel against a real SMTP server on loopback (tests/support/smtp-sink.ts): what
 * arrives, and what the sender is told when the server refuses, is gone, or never greets.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type EmailTimeouts, emailChannel } from '#app/server/inbox/alerts/alert-delivery.server';
import type { Alert, AlertIssue } from '#app/server/inbox/alerts/alert-message';
import type { EmailAlertConfig } from '#app/server/inbox/alerts/alert-policy';
import {
  refusedPort,
  type SmtpSink,
  startSilentServer,
  startSmtpSink,
} from '#tests/support/smtp-sink';
import { until } from '#tests/support/wait-for';

const ISSUE: AlertIssue = {
  id: 7,
  title: "TypeError: Cannot read properties of undefined (reading 'id')",
  culprit: 'app/routes/sign-in.tsx in OrderRow',
  level: 'error',
  eventCount: 3,
  userCount: 2,
  firstSeen: Date.UTC(2026, 10, 28, 3, 0, 0),
  lastSeen: Date.UTC(2026, 10, 28, 3, 5, 0),
  release: 'shop@1.4.0',
  environment: 'production',
  link: 'https://errors.example.com/errors/issues/7',
};

const NEW_ISSUE: Alert = { kind: 'new', issue: ISSUE };

/** Short, so the time-out cases end quickly; a healthy loopback server answers far sooner. */
const SHORT: EmailTimeouts = { connectionMs: 2_000, greetingMs: 300, socketMs: 2_000 };

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

async function sink(options?: Parameters<typeof startSmtpSink>[0]): Promise<SmtpSink> {
  const started = await startSmtpSink(options);
  stops.push(() => started.close());
  return started;
}

function config(port: number, overrides: Partial<EmailAlertConfig> = {}): EmailAlertConfig {
  return {
    smtp: { secure: false, host: '127.0.0.1', port },
    to: ['ops@example.com', 'dev@example.org'],
    from: 'alerts@errors.example.com',
    ...overrides,
  };
}

const signal = () => new AbortController().signal;

/** The one message the sink received. */
function onlyMail(smtp: SmtpSink) {
  expect(smtp.received).toHaveLength(1);
  return smtp.received[0] as SmtpSink['received'][number];
}

describe('emailChannel', () => {
  it('sends one message to every recipient, from the sender, with subject, text and HTML', async () => {
    const smtp = await sink();
    const delivery = await emailChannel(config(smtp.port)).send(NEW_ISSUE, signal());

    expect(delivery).toEqual({ outcome: 'sent' });
    const mail = onlyMail(smtp);
    expect(mail.envelope).toEqual({
      from: 'alerts@errors.example.com',
      to: ['ops@example.com', 'dev@example.org'],
    });
    expect(mail.to).toEqual(['ops@example.com', 'dev@example.org']);
    expect(mail.from).toEqual({ address: 'alerts@errors.example.com', name: 'Error inbox' });
    expect(mail.subject).toBe(
      "New issue: TypeError: Cannot read properties of undefined (reading 'id')",
    );
    expect(mail.text).toContain('A new issue in the error inbox.');
    expect(mail.text).toContain('where: app/routes/sign-in.tsx in OrderRow');
    expect(mail.text).toContain('events: 3, 2 users');
    expect(mail.text).toContain('Open the issue: https://errors.example.com/errors/issues/7');
    expect(mail.html).toContain(
      '<a href="https://errors.example.com/errors/issues/7">Open the issue</a>',
    );
    expect(mail.html).toContain(
      '<strong>TypeError: Cannot read properties of undefined (reading &#39;id&#39;)</strong>',
    );
  });

  it('escapes an attacker’s title in the HTML, and keeps the subject on one line', async () => {
    const smtp = await sink();
    const title =
      '<script>alert(1)</script><img src=x onerror="steal()">\r\nBcc: victim@example.com';
    await emailChannel(config(smtp.port)).send(
      { kind: 'regressed', issue: { ...ISSUE, title } },
      signal(),
    );

    const mail = onlyMail(smtp);
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain(
      '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;steal()&quot;&gt; Bcc: victim@example.com',
    );
    expect(mail.subject).toBe(
      'Regressed: <script>alert(1)</script><img src=x onerror="steal()"> Bcc: victim@example.com',
    );
    expect(mail.envelope.to).toEqual(['ops@example.com', 'dev@example.org']);
  });

  it('signs in with the user and password of the URL', async () => {
    const credentials = { user: 'alerts@example.com', password: 'p@ss:w0rd/with%odd chars' };
    const smtp = await sink({ auth: credentials });
    const channel = emailChannel(
      config(smtp.port, {
        smtp: { secure: false, host: '127.0.0.1', port: smtp.port, auth: credentials },
      }),
    );

    expect(await channel.send(NEW_ISSUE, signal())).toEqual({ outcome: 'sent' });
    expect(smtp.received.map((mail) => mail.user)).toEqual(['alerts@example.com']);
  });

  it('fails on a refused password (535), and no reason or name carries it', async () => {
    const smtp = await sink({
      auth: { user: 'alerts', password: 'the-right-one' },
      echoWrongPassword: true,
    });
    const channel = emailChannel(
      config(smtp.port, {
        smtp: {
          secure: false,
          host: '127.0.0.1',
          port: smtp.port,
          auth: { user: 'alerts', password: 'hunter2-wrong' },
        },
      }),
    );

    const delivery = await channel.send(NEW_ISSUE, signal());
    expect(delivery).toMatchObject({ outcome: 'failed' });
    const reason = delivery.outcome === 'failed' ? delivery.reason : '';
    expect(reason).toMatch(
      /^127\.0\.0\.1:\d+ answered 535 Authentication failed \(alerts:\*\*\*\)/,
    );
    expect(reason).not.toContain('hunter2');
    expect(channel.name).toBe('email 127.0.0.1');
    expect(smtp.received).toEqual([]);
  });

  it.each([
    ['MAIL FROM', 451, 'retry'],
    ['RCPT TO', 450, 'retry'],
    ['DATA', 452, 'retry'],
    ['MAIL FROM', 553, 'failed'],
    ['RCPT TO', 550, 'failed'],
    ['DATA', 554, 'failed'],
  ] as const)('answers %s %i with %s, with the reply as the reason', async (at, code, outcome) => {
    const smtp = await sink();
    smtp.refusal = { at, code, message: 'Mailbox unavailable' };

    const delivery = await emailChannel(config(smtp.port)).send(NEW_ISSUE, signal());

    expect(delivery).toEqual({
      outcome,
      reason: expect.stringMatching(
        new RegExp(`^127\\.0\\.0\\.1:\\d+ answered ${code} Mailbox unavailable`),
      ),
    });
    expect(smtp.received).toEqual([]);
  });

  it('sends again once the server takes mail again after a 4xx', async () => {
    const smtp = await sink();
    const channel = emailChannel(config(smtp.port));
    smtp.refusal = { at: 'DATA', code: 421, message: 'Try again later' };
    expect(await channel.send(NEW_ISSUE, signal())).toMatchObject({ outcome: 'retry' });

    smtp.refusal = undefined;
    expect(await channel.send(NEW_ISSUE, signal())).toEqual({ outcome: 'sent' });
    expect(smtp.received).toHaveLength(1);
  });

  it('fails, naming who was refused, when one recipient of two is refused', async () => {
    const smtp = await sink();
    smtp.refusal = {
      at: 'RCPT TO',
      code: 550,
      message: 'No such user',
      recipient: 'dev@example.org',
    };

    const delivery = await emailChannel(config(smtp.port)).send(NEW_ISSUE, signal());

    expect(delivery).toEqual({
      outcome: 'failed',
      reason: 'refused dev@example.org: 550 No such user; sent to the others',
    });
    expect(smtp.received.map((mail) => mail.envelope.to)).toEqual([['ops@example.com']]);
  });

  it('retries when the connection is refused', async () => {
    const port = await refusedPort();
    expect(await emailChannel(config(port), SHORT).send(NEW_ISSUE, signal())).toEqual({
      outcome: 'retry',
      reason: `127.0.0.1:${port} refused the connection`,
    });
  });

  it('retries when the server never greets, after the greeting time-out', async () => {
    const silent = await startSilentServer();
    stops.push(() => silent.close());

    expect(await emailChannel(config(silent.port), SHORT).send(NEW_ISSUE, signal())).toEqual({
      outcome: 'retry',
      reason: `127.0.0.1:${silent.port} sent no greeting in time`,
    });
  });

  it('stops waiting for a silent server when the sender aborts', async () => {
    const silent = await startSilentServer();
    stops.push(() => silent.close());
    const patient: EmailTimeouts = { connectionMs: 60_000, greetingMs: 60_000, socketMs: 60_000 };
    const controller = new AbortController();

    const sending = emailChannel(config(silent.port), patient).send(NEW_ISSUE, controller.signal);
    await until("the silent mail server's connection", () => silent.connections() === 1);
    controller.abort();

    expect(await sending).toEqual({
      outcome: 'retry',
      reason: 'cancelled before the server confirmed the message',
    });
    await until("the silent mail server's connection to close", () => silent.connections() === 0);
  });
});
