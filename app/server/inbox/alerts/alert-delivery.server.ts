/**
 * Delivering alerts: the sender claims due deliveries from the outbox
 * (./alert-outbox.server.ts), sends each through its channel (a webhook, or email through the
 * operator's SMTP server) and settles it as ./alert-policy.ts says (sent, tried again later, or
 * failed). It runs in every worker's ingest thread (decision 1201): the claims keep them from
 * sending a row twice, and whichever is alive sends, so alerts go on while any worker runs and
 * resume after a restart from what the database holds. A channel answers with a Delivery and
 * knows nothing of the outbox; the sender knows nothing of HTTP or SMTP.
 */
import nodemailer from 'nodemailer';
import type { NodemailerError } from 'nodemailer/lib/errors';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { type Alert, alertEmailOf, oneLine, webhookBody } from './alert-message';
import { type AlertOutbox, CLAIM_LEASE_MS, type ClaimedDelivery } from './alert-outbox.server';
import {
  type AlertSettings,
  type EmailAlertConfig,
  emailChannelName,
  failingChannels,
  nextStep,
  retryAfterMsOf,
  type SmtpServer,
  webhookChannelName,
} from './alert-policy';

/**
 * A channel's answer for one alert. `retry`: worth trying again later (5xx, 429, a time-out, a
 * refused connection, SMTP 4xx); `failed`: trying again would not help (4xx, SMTP 5xx, a bad
 * address). A reason is shown in the inbox and the log, so it never carries a secret.
 * `retryAfterMs`: the receiver's own word on when to try again (Retry-After), when it gave one.
 */
export type Delivery =
  | { outcome: 'sent' }
  | { outcome: 'retry'; reason: string; retryAfterMs?: number }
  | { outcome: 'failed'; reason: string };

/** Where alerts go: a webhook or an email channel, each sending one alert at a time. */
export interface AlertChannel {
  /**
   * Stable while the configuration is, and safe to show: `webhook <host>` or `email <host>`, never
   * a URL's path, query or password.
   */
  readonly name: string;
  send(alert: Alert, signal: AbortSignal): Promise<Delivery>;
}

/**
 * The longest the sender sleeps. The ingest's own alerts wake it at once (`wake`, after each
 * batch); the poll stays for rows written where no message reaches this thread: a page's test
 * alert (the main thread), another worker's lapsed claim. A test alert is picked up within it.
 */
export const POLL_MS = 1_000;
/** Deliveries claimed at once, sent side by side. */
const BATCH = 8;
/** How often done alerts are pruned. */
const PRUNE_EVERY_MS = 60_000;
/**
 * The longest one send may take, half the claim's lease: a send still going when the lease ends
 * would be claimed and sent again by another sender. SMTP's own time-outs count silence, so a
 * server that answers slowly but steadily could otherwise hold a send for minutes.
 */
export const SEND_DEADLINE_MS = CLAIM_LEASE_MS / 2;

export interface AlertSenderOptions {
  outbox: AlertOutbox;
  channels: readonly AlertChannel[];
  now?: () => number;
  /** SEND_DEADLINE_MS unless told (tests). */
  sendDeadlineMs?: number;
  /** The channels that keep failing changed (for /health): their names and last reasons. */
  onFailing(failing: string[]): void;
  /** A line for the operator: a delivery that failed for good or was given up. */
  log(kind: 'alert failed' | 'alert sender', line: string): void;
}

export interface AlertSender {
  /** Looks for due deliveries now (an alert was just raised). */
  wake(): void;
  stop(): void;
}

export function startAlertSender(options: AlertSenderOptions): AlertSender {
  const { outbox, channels } = options;
  const now = options.now ?? Date.now;
  const sendDeadlineMs = options.sendDeadlineMs ?? SEND_DEADLINE_MS;
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  let prunedAt = 0;
  let failing = '';

  const deliver = async (claimed: ClaimedDelivery) => {
    const channel = channels.find((candidate) => candidate.name === claimed.channel);
    let delivery: Delivery;
    if (!channel) {
      delivery = { outcome: 'failed', reason: 'the channel is no longer configured' };
    } else {
      delivery = await sendWithin(channel, claimed.alert, stopping.signal, sendDeadlineMs);
    }
    if (stopping.signal.aborted) return; // its lease ends, and another sender takes it
    const step = nextStep(delivery, claimed.attempts, claimed.raisedAt, now());
    if (!outbox.settle(claimed, step, now())) return;
    if (step.state === 'failed') {
      options.log(
        'alert failed',
        `[alerts] a ${claimed.alert.kind} alert to ${claimed.channel} failed: ${step.reason}`,
      );
    }
  };

  const tick = async () => {
    timer = undefined;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        // A read first: a claim is a write, and takes the lock the ingest writes under.
        const due = outbox.nextDue();
        if (due === undefined || due > now()) break;
        const claimed = outbox.claim(now(), BATCH);
        await Promise.all(claimed.map(deliver));
        if (claimed.length === BATCH) again = true;
      } while (again && !stopping.signal.aborted);
      if (now() - prunedAt >= PRUNE_EVERY_MS) {
        prunedAt = now();
        outbox.prune(prunedAt);
      }
      const current = failingChannels(outbox.latestAttempts(), now());
      if (current.join('\n') !== failing) {
        failing = current.join('\n');
        options.onFailing(current);
      }
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      options.log(
        'alert sender',
        `[alerts] the sender could not read the outbox: ${error instanceof Error ? error.message : String(error)}${typeof code === 'string' ? ` (${code})` : ''}`,
      );
    } finally {
      running = false;
      schedule();
    }
  };

  const schedule = () => {
    if (stopping.signal.aborted) return;
    if (timer) clearTimeout(timer);
    let wait = POLL_MS;
    try {
      const due = outbox.nextDue();
      if (due !== undefined) wait = Math.max(0, Math.min(POLL_MS, due - now()));
    } catch {
      // Read again at the next turn.
    }
    timer = setTimeout(() => void tick(), again ? 0 : wait);
  };

  schedule();
  return {
    wake() {
      if (running) {
        again = true;
        return;
      }
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void tick(), 0);
    },
    stop() {
      stopping.abort();
      if (timer) clearTimeout(timer);
    },
  };
}

/**
 * One send, stopped at `deadlineMs`: the channel's signal aborts then (both channels stop their
 * connection on it), and the sender waits no longer even for a channel that would not stop.
 * A send past its deadline is tried again later, as a time-out.
 */
async function sendWithin(
  channel: AlertChannel,
  alert: Alert,
  stopping: AbortSignal,
  deadlineMs: number,
): Promise<Delivery> {
  const deadline = AbortSignal.timeout(deadlineMs);
  const late = new Promise<Delivery>((settle) =>
    deadline.addEventListener(
      'abort',
      () => settle({ outcome: 'retry', reason: `no answer within ${deadlineMs} ms` }),
      { once: true },
    ),
  );
  try {
    return await Promise.race([channel.send(alert, AbortSignal.any([stopping, deadline])), late]);
  } catch {
    // A channel answers with a Delivery; one that throws is a bug, tried again later.
    return { outcome: 'retry', reason: 'the channel failed unexpectedly' };
  }
}

/** The channels the settings ask for, named as `alertChannelNames` names them. */
export function alertChannels(settings: AlertSettings): AlertChannel[] {
  return [
    ...settings.webhookUrls.map((url) => webhookChannel(new URL(url))),
    ...(settings.email ? [emailChannel(settings.email)] : []),
  ];
}

/** How long a webhook may take to answer before the attempt counts as a time-out (retried). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Bytes of a webhook's answer read at most; the rest is dropped unread. */
export const ANSWER_BYTES = 4 * 1024;

export interface WebhookOptions {
  timeoutMs?: number;
  /** The clock, for a Retry-After given as a date. */
  now?: () => number;
}

/**
 * The webhook channel (MONITORING_ALERT_WEBHOOK_URL): one POST of `webhookBody`'s JSON per
 * alert. A webhook's URL is its secret (Slack's and Discord's carry the key in the path), so
 * the channel's name, its reasons and anything logged name the host only. The call is bounded:
 * a time-out, no redirect followed (a 3xx is a failure: a moved hook must be configured
 * again, never chased to wherever it points), and at most ANSWER_BYTES of the answer read.
 */
export function webhookChannel(url: URL, options: WebhookOptions = {}): AlertChannel {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const target = url.href;
  return {
    name: webhookChannelName(url),
    async send(alert, signal): Promise<Delivery> {
      const timeout = AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'error-inbox-alerts' },
          body: JSON.stringify(webhookBody(alert)),
          redirect: 'manual',
          signal: AbortSignal.any([signal, timeout]),
        });
        // Read within the same time-out: a receiver that answers and then trickles is a time-out.
        await readAtMost(response, ANSWER_BYTES);
      } catch (error) {
        if (timeout.aborted)
          return { outcome: 'retry', reason: `no answer within ${timeoutMs} ms` };
        return { outcome: 'retry', reason: networkReasonOf(error) };
      }
      return deliveryOf(response.status, response.headers.get('retry-after'), now());
    },
  };
}

/**
 * An answer's status, as the sender's policy takes it: 2xx sent; 408, 429 and 5xx worth
 * another try (with the receiver's Retry-After); a redirect or any other 4xx failed for good.
 */
export function deliveryOf(status: number, retryAfter: string | null, now: number): Delivery {
  if (status >= 200 && status < 300) return { outcome: 'sent' };
  if (status >= 300 && status < 400) {
    return { outcome: 'failed', reason: `answered ${status}, a redirect (not followed)` };
  }
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = retryAfterMsOf(retryAfter, now);
    return {
      outcome: 'retry',
      reason: `answered ${status}`,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  return { outcome: 'failed', reason: `answered ${status}` };
}

/**
 * Reads up to `limit` bytes of the body, then lets the rest go: a loop of its own because
 * node:stream/consumers reads a body whole, and the bound is the point.
 */
async function readAtMost(response: Response, limit: number): Promise<number> {
  const reader = response.body?.getReader();
  if (!reader) return 0;
  let read = 0;
  try {
    while (read < limit) {
      const { done, value } = await reader.read();
      if (done) return read;
      read += value.byteLength;
    }
    return read;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The error's code only: undici's messages name the address, and a URL could follow. */
function networkReasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if ((error as { name?: unknown } | undefined)?.name === 'AbortError') return 'stopped';
  return code ? `could not connect (${code})` : 'could not connect';
}

/** How long each step may take, so a stalled server cannot hold the sender. */
export interface EmailTimeouts {
  /** To open the TCP (and, for smtps://, TLS) connection. */
  connectionMs: number;
  /** From connecting to the server's 220 greeting. */
  greetingMs: number;
  /** Silence on the connection at any later step. */
  socketMs: number;
}

export const DEFAULT_EMAIL_TIMEOUTS: EmailTimeouts = {
  connectionMs: 10_000,
  greetingMs: 10_000,
  socketMs: 30_000,
};

/** A reason is shown in the inbox's history and the log: one short line. */
const REASON_MAX_CHARS = 200;

/**
 * The email channel: one message per alert, to every recipient, through the operator's SMTP
 * server with nodemailer. SMTP 4xx, refused or reset connections, time-outs and greeting
 * failures are worth a retry; SMTP 5xx is not. The SMTP password is in no name, reason or log
 * line (nodemailer's own logger stays off).
 */
export function emailChannel(
  config: EmailAlertConfig,
  timeouts: EmailTimeouts = DEFAULT_EMAIL_TIMEOUTS,
): AlertChannel {
  // Not pooled: a few alerts a minute at most, and no connection is held between them.
  const transport = nodemailer.createTransport(transportOptionsOf(config.smtp, timeouts));
  const secrets = passwordFormsOf(config.smtp);
  const server = `${config.smtp.host}:${config.smtp.port}`;
  return {
    name: emailChannelName(config.smtp),
    async send(alert, signal) {
      const email = alertEmailOf(alert);
      try {
        const info = await transport.sendMail({
          from: { name: 'Error inbox', address: config.from },
          to: config.to,
          subject: email.subject,
          text: email.text,
          html: email.html,
          signal,
        });
        return deliveryOfSent(info, secrets);
      } catch (error) {
        return deliveryOfError(error as NodemailerError, server, secrets);
      }
    },
  };
}

/**
 * nodemailer's options for the server. Over smtp:// nodemailer upgrades with STARTTLS when the
 * server offers it; with a password and a server off this machine the upgrade is required, so
 * a stripped STARTTLS cannot make it send the password in clear (decision 1211).
 */
export function transportOptionsOf(
  smtp: SmtpServer,
  timeouts: EmailTimeouts,
): SMTPTransport.Options {
  return {
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    requireTLS: smtp.auth !== undefined && !smtp.secure && !isLoopbackHost(smtp.host),
    ...(smtp.auth ? { auth: { user: smtp.auth.user, pass: smtp.auth.password } } : {}),
    connectionTimeout: timeouts.connectionMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
  };
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The password as it could show up in a reply or a message: as given, percent-encoded, and in
 * base64 alone or inside an AUTH PLAIN answer (a server may echo the command it refuses).
 */
export function passwordFormsOf(smtp: SmtpServer): string[] {
  const auth = smtp.auth;
  if (!auth?.password) return [];
  const base64 = (value: string) => Buffer.from(value, 'utf8').toString('base64');
  // Longest first, so a short password does not break up the longer forms before they are hidden.
  return [
    auth.password,
    encodeURIComponent(auth.password),
    base64(auth.password),
    base64(`\u0000${auth.user}\u0000${auth.password}`),
    base64(`${auth.user}\u0000${auth.user}\u0000${auth.password}`),
  ].sort((a, b) => b.length - a.length);
}

/**
 * Accepted for every recipient: sent. Some refused: failed, with who and why; a retry would
 * send the alert again to those who have it (decision 1212).
 */
export function deliveryOfSent(
  info: { rejected?: unknown[]; rejectedErrors?: NodemailerError[] },
  secrets: readonly string[] = [],
): Delivery {
  const rejected = (info.rejected ?? []).map(String);
  if (rejected.length === 0) return { outcome: 'sent' };
  const answer = info.rejectedErrors?.[0]?.response;
  return {
    outcome: 'failed',
    reason: reasonText(
      `refused ${rejected.join(', ')}${answer ? `: ${answer}` : ''}; sent to the others`,
      secrets,
    ),
  };
}

/** Error codes nodemailer gives without an SMTP reply for what may pass later. */
const TRANSIENT_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ETLS', 'EPROXY']);

/**
 * The Delivery for a send that threw. A reply's class decides (nodemailer's `permanent`: 5xx
 * but 503); a failed greeting is always worth a retry, whatever it said, as are the network's
 * failures. Without a reply, the rest (missing credentials, a message nodemailer could not
 * build) would fail again the same way.
 */
export function deliveryOfError(
  error: NodemailerError,
  server: string,
  secrets: readonly string[] = [],
): Delivery {
  const reason = reasonText(reasonOf(error, server), secrets);
  if (error.code === 'EABORT') return { outcome: 'retry', reason };
  if (error.command === 'CONN') return { outcome: 'retry', reason };
  if (typeof error.responseCode === 'number') {
    return { outcome: error.permanent ? 'failed' : 'retry', reason };
  }
  return { outcome: TRANSIENT_CODES.has(error.code ?? '') ? 'retry' : 'failed', reason };
}

function reasonOf(error: NodemailerError, server: string): string {
  if (error.code === 'EABORT') return 'cancelled before the server confirmed the message';
  if (error.response) {
    const step = error.command === 'CONN' ? 'greeting' : error.command;
    return `${server} answered ${error.response}${step ? ` (${step})` : ''}`;
  }
  switch (error.timeoutType) {
    case 'CONNECT_TIMEOUT':
      return `no connection to ${server} in time`;
    case 'GREETING_TIMEOUT':
      return `${server} sent no greeting in time`;
    case 'UPGRADE_TIMEOUT':
      return `${server} did not finish STARTTLS in time`;
    case 'SOCKET_TIMEOUT':
      return `${server} stopped answering`;
  }
  switch (error.originalCode) {
    case 'ECONNREFUSED':
      return `${server} refused the connection`;
    case 'ECONNRESET':
      return `${server} reset the connection`;
  }
  return `${server}: ${error.message}`;
}

function reasonText(reason: string, secrets: readonly string[]): string {
  let text = reason;
  for (const secret of secrets) text = text.split(secret).join('***');
  return oneLine(text, REASON_MAX_CHARS);
}
