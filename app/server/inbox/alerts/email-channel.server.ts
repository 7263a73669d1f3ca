/**
 * The email channel: one message per alert, to every recipient, through the operator's SMTP
 * server with nodemailer (issue 34). It answers the sender with a Delivery: SMTP 4xx, refused
 * or reset connections, time-outs and greeting failures are worth a retry; SMTP 5xx is not.
 * The SMTP password is in no name, reason or log line (nodemailer's own logger stays off).
 */
import nodemailer from 'nodemailer';
import type { NodemailerError } from 'nodemailer/lib/errors';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import type { AlertChannel, Delivery } from './alert';
import { alertEmailOf, oneLine } from './alert-email';
import type { EmailAlertConfig, SmtpServer } from './email-config';

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

export function emailChannel(
  config: EmailAlertConfig,
  timeouts: EmailTimeouts = DEFAULT_EMAIL_TIMEOUTS,
): AlertChannel {
  // Not pooled: a few alerts a minute at most, and no connection is held between them.
  const transport = nodemailer.createTransport(transportOptionsOf(config.smtp, timeouts));
  const secrets = passwordFormsOf(config.smtp);
  const server = `${config.smtp.host}:${config.smtp.port}`;
  return {
    name: `email ${config.smtp.host}`,
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
