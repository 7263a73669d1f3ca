/**
 * Alerts as the operator sets them up and as the inbox applies them (issue 34), as pure
 * functions with the clock passed in. The settings: MONITORING_ALERT_WEBHOOK_URL,
 * MONITORING_SMTP_URL and the addresses read without nodemailer (so the environment module
 * imports no transport, and a bad value stops the server at start), the channels' safe names
 * taken from them, and the start line. The rules: the triggers, the spike rule, the flood
 * limit, the back-off and the give-up, and when a channel counts as failing. The outbox
 * (./alert-outbox.server.ts) and the sender (./alert-delivery.server.ts) apply them;
 * tests/unit/server/inbox/alerts/alert-policy.test.ts holds their tables.
 */
import type { ServerConfig } from '#app/server/env.server';
import type { AlertThreadSettings } from '../store/ingest-protocol';
import type { Delivery } from './alert-delivery.server';
import type { AlertKind } from './alert-message';
import type { AlertOutboxOptions } from './alert-outbox.server';

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** What the ingest said of a stored event: a new issue, or one seen again while resolved. */
export interface StoredIssueFacts {
  isNewIssue: boolean;
  regressed: boolean;
}

/** A new issue or a regression alerts; a repeat of an open issue does not. */
export function triggerOf(facts: StoredIssueFacts): 'new' | 'regressed' | undefined {
  if (facts.isNewIssue) return 'new';
  if (facts.regressed) return 'regressed';
  return undefined;
}

/** MONITORING_ALERT_SPIKE, parsed: COUNT events of one issue within WINDOW. */
export interface SpikeRule {
  count: number;
  windowMs: number;
  /** As configured (`100/1h`), for the alert's text. */
  text: string;
}

const UNIT_MS = { s: SECOND_MS, m: MINUTE_MS, h: HOUR_MS, d: DAY_MS } as const;
const MAX_SPIKE_WINDOW_MS = 30 * DAY_MS;

/** `100/1h` → a rule, or why it is not one (for the env module's message). */
export function parseSpikeRule(value: string): SpikeRule | { error: string } {
  const text = value.trim();
  const match = /^(\d{1,9})\/(\d{1,6})(s|m|h|d)$/.exec(text);
  if (!match) {
    return { error: `must be COUNT/WINDOW with s, m, h or d (100/1h), got "${value}"` };
  }
  const count = Number(match[1]);
  const windowMs = Number(match[2]) * UNIT_MS[match[3] as keyof typeof UNIT_MS];
  if (count < 1) return { error: `needs a COUNT of at least 1, got "${value}"` };
  if (windowMs < SECOND_MS || windowMs > MAX_SPIKE_WINDOW_MS) {
    return { error: `needs a WINDOW from 1s to 30d, got "${value}"` };
  }
  return { count, windowMs, text };
}

/** One issue's spike counter: events in the current window, and whether it alerted in it. */
export interface SpikeWindow {
  windowStart: number;
  count: number;
  alerted: boolean;
}

/**
 * Counts one event in fixed windows (the epoch cut into WINDOW-long pieces): the event that
 * brings a window's count to COUNT alerts, once per issue and window. Fixed windows cost one
 * row per issue; a burst split across two windows needs up to twice COUNT to alert.
 */
export function spikeStep(
  window: SpikeWindow | undefined,
  at: number,
  rule: SpikeRule,
): { window: SpikeWindow; alert: boolean } {
  const windowStart = Math.floor(at / rule.windowMs) * rule.windowMs;
  const current =
    window && window.windowStart === windowStart
      ? window
      : { windowStart, count: 0, alerted: false };
  const count = current.count + 1;
  const alert = !current.alerted && count >= rule.count;
  return { window: { windowStart, count, alerted: current.alerted || alert }, alert };
}

/** Alerts sent on their own in any minute, all channels and kinds together; past it, a summary. */
export const FLOOD_LIMIT = 5;
export const FLOOD_WINDOW_MS = MINUTE_MS;

/**
 * An alert goes on its own while fewer than FLOOD_LIMIT went in the last minute (`recent`: when
 * each went, the alerts raised on their own in that minute); past it, it joins one summary that
 * is due when the minute frees a place, so a flood is a few alerts and a summary a minute.
 */
export function floodPlan(
  recent: readonly number[],
  now: number,
): { kind: 'alone' } | { kind: 'summary'; dueAt: number } {
  const inWindow = recent.filter((at) => at > now - FLOOD_WINDOW_MS).sort((a, b) => a - b);
  if (inWindow.length < FLOOD_LIMIT) return { kind: 'alone' };
  const oldest = inWindow[inWindow.length - FLOOD_LIMIT] as number;
  return { kind: 'summary', dueAt: oldest + FLOOD_WINDOW_MS };
}

/** Kinds the flood limit counts: an operator's test alert is never held back. */
export function countsTowardFlood(kind: AlertKind): boolean {
  return kind !== 'test' && kind !== 'summary';
}

/** The first retry's wait; each next one doubles, up to MAX_BACKOFF_MS. */
export const FIRST_BACKOFF_MS = 2 * SECOND_MS;
export const MAX_BACKOFF_MS = 15 * MINUTE_MS;
/** A Retry-After is honoured up to this: a receiver asking for a day is asking too much. */
export const MAX_RETRY_AFTER_MS = HOUR_MS;
/** A delivery still failing this long after its alert was raised is given up. */
export const GIVE_UP_AFTER_MS = DAY_MS;

/** What becomes of a delivery row after an attempt. */
export type NextStep =
  | { state: 'sent' }
  | { state: 'pending'; notBefore: number; reason: string }
  | { state: 'failed'; reason: string; gaveUp: boolean };

/**
 * After attempt number `attempts` (1 for the first) of an alert raised at `raisedAt`: sent; tried
 * again after a back-off that doubles from FIRST_BACKOFF_MS (or after the receiver's
 * Retry-After, within MAX_RETRY_AFTER_MS); or failed, at once for an answer that a retry would
 * not change, and for a retry once GIVE_UP_AFTER_MS have passed since the alert was raised.
 */
export function nextStep(
  attempt: Delivery,
  attempts: number,
  raisedAt: number,
  now: number,
): NextStep {
  if (attempt.outcome === 'sent') return { state: 'sent' };
  if (attempt.outcome === 'failed')
    return { state: 'failed', reason: attempt.reason, gaveUp: false };
  if (now - raisedAt >= GIVE_UP_AFTER_MS) {
    return { state: 'failed', reason: `gave up after a day: ${attempt.reason}`, gaveUp: true };
  }
  const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, attempts - 1));
  const wait =
    attempt.retryAfterMs === undefined
      ? backoff
      : Math.min(MAX_RETRY_AFTER_MS, Math.max(FIRST_BACKOFF_MS, attempt.retryAfterMs));
  return { state: 'pending', notBefore: now + wait, reason: attempt.reason };
}

/** A `Retry-After` header (seconds, or an HTTP date) in milliseconds from `now`. */
export function retryAfterMsOf(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d{1,9}$/.test(value)) return Number(value) * SECOND_MS;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A channel's latest attempt, across every worker (./alert-outbox.server.ts reads it). */
export interface ChannelAttempt {
  channel: string;
  at: number;
  sent: boolean;
  reason: string | null;
}

/** How long a failed attempt keeps /health degraded when no later attempt says otherwise. */
export const FAILING_LINGERS_MS = HOUR_MS;

/**
 * The channels that keep failing, as /health words them: those whose latest attempt failed
 * within the last FAILING_LINGERS_MS. A success clears it; so does an hour with nothing to send.
 */
export function failingChannels(latest: readonly ChannelAttempt[], now: number): string[] {
  return latest
    .filter((attempt) => !attempt.sent && now - attempt.at < FAILING_LINGERS_MS)
    .map((attempt) => `${attempt.channel} (${attempt.reason ?? 'failed'})`)
    .sort();
}

/** Where alerts are handed over, from `smtp://` or `smtps://[user:password@]host[:port]`. */
export interface SmtpServer {
  /** `smtps://`: TLS from the first byte. `smtp://`: STARTTLS when the server offers it. */
  secure: boolean;
  host: string;
  port: number;
  /** From the URL's `user:password@`, percent-decoded. The password is shown nowhere. */
  auth?: { user: string; password: string };
}

/** MONITORING_SMTP_URL, MONITORING_ALERT_EMAIL_TO and MONITORING_ALERT_EMAIL_FROM, read. */
export interface EmailAlertConfig {
  smtp: SmtpServer;
  /** Every alert goes, as one message, to all of them. */
  to: string[];
  from: string;
}

/** Submission ports, as nodemailer defaults them: 587 (STARTTLS) and 465 (implicit TLS). */
const DEFAULT_PORT = { 'smtp:': 587, 'smtps:': 465 } as const;

/**
 * Reads MONITORING_SMTP_URL. An error never repeats the value as given: it may hold a password,
 * and the message goes to the log. It shows the URL with the password starred instead.
 */
export function smtpServerOf(value: string): SmtpServer | { error: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { error: 'is not a URL: expected smtp://[user:password@]host[:port] or smtps://…' };
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    // Only the scheme: `user:password@host` parses as the scheme `user:` with the rest a path.
    const scheme = value.startsWith(`${url.protocol}//`) ? `, got "${url.protocol}//"` : '';
    return { error: `must start with smtp:// or smtps://${scheme}` };
  }
  const shown = redactedUrl(url);
  // WHATWG URL parses an unknown scheme's host leniently: "smtp://a b" keeps its space.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host || !/^[a-z0-9.:-]+$/i.test(host)) {
    return { error: `has no host name, got "${shown}"` };
  }
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) {
    return { error: `takes no path, query or fragment, got "${shown}"` };
  }
  const port = url.port ? Number(url.port) : DEFAULT_PORT[url.protocol];
  if (!(port >= 1 && port <= 65535)) {
    return { error: `has no valid port, got "${shown}"` };
  }
  if (url.password && !url.username) {
    return { error: `has a password without a user name, got "${shown}"` };
  }
  return {
    secure: url.protocol === 'smtps:',
    host,
    port,
    ...(url.username
      ? {
          auth: {
            user: decodeURIComponent(url.username),
            password: decodeURIComponent(url.password),
          },
        }
      : {}),
  };
}

function redactedUrl(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password) copy.password = '***';
  return copy.href;
}

/**
 * A bare address, `name@domain`: no display name, no comment, nothing a header could split on.
 * A loose check on purpose: the SMTP server is the judge of what it accepts.
 */
export function isEmailAddress(value: string): boolean {
  return /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+$/.test(value);
}

/**
 * The sender when MONITORING_ALERT_EMAIL_FROM is unset: at PUBLIC_URL's host, else (and for an
 * IPv6 address, which an address would need as a `[IPv6:…]` literal) at localhost.
 */
export function defaultAlertSender(publicUrl: URL | undefined): string {
  const host = publicUrl?.hostname;
  return `alerts@${host && !host.startsWith('[') ? host : 'localhost'}`;
}

/**
 * What the channels are built from, as plain values: it travels to the ingest thread, where the
 * sender runs (decision 1201) and builds them (./alert-delivery.server.ts).
 */
export interface AlertSettings {
  /** MONITORING_ALERT_WEBHOOK_URL, each URL whole (a secret: never logged or shown). */
  webhookUrls: readonly string[];
  /** MONITORING_SMTP_URL and the addresses (the password a secret: never logged or shown). */
  email?: EmailAlertConfig;
}

/**
 * A channel's name, stable while the configuration is, and safe to show: the host only, never a
 * webhook URL's path or query (its secret) nor the SMTP password.
 */
export function webhookChannelName(url: URL): string {
  return `webhook ${url.host}`;
}

export function emailChannelName(smtp: SmtpServer): string {
  return `email ${smtp.host}`;
}

/**
 * The names of the channels the settings ask for, in the order the sender builds them: read off
 * the settings, so that naming them builds no channel (no nodemailer transport on the main
 * thread for a start line).
 */
export function alertChannelNames(settings: AlertSettings): string[] {
  return [
    ...settings.webhookUrls.map((url) => webhookChannelName(new URL(url))),
    ...(settings.email ? [emailChannelName(settings.email.smtp)] : []),
  ];
}

/** The alert settings of a configuration; none in Sentry mode, where Sentry's own alerts apply. */
export function alertSettingsOf(config: ServerConfig): AlertThreadSettings | undefined {
  if (config.monitoring.kind !== 'local-inbox') return undefined;
  return {
    webhookUrls: config.alertWebhookUrls.map((url) => url.href),
    ...(config.alertEmail ? { email: config.alertEmail } : {}),
    ...(config.alertSpike ? { spike: config.alertSpike.text } : {}),
    ...(config.publicUrl ? { publicUrl: config.publicUrl.href } : {}),
  };
}

/** Some alert channel is configured, so the sender must run (local inbox mode only). */
export function alertsConfigured(config: ServerConfig): boolean {
  const settings = alertSettingsOf(config);
  return settings !== undefined && alertChannelNames(settings).length > 0;
}

/** What the outbox needs of the settings: the channels' names, the spike rule, the links' base. */
export function alertOutboxOptionsOf(settings: AlertThreadSettings): AlertOutboxOptions {
  const spike = settings.spike === undefined ? undefined : parseSpikeRule(settings.spike);
  return {
    channels: alertChannelNames(settings),
    ...(spike && !('error' in spike) ? { spike } : {}),
    ...(settings.publicUrl === undefined ? {} : { publicUrl: settings.publicUrl }),
  };
}

/**
 * The start line on alerts (undefined when none are configured): the channels by their safe
 * names, the spike rule, and where links point. With SENTRY_DSN nothing here runs.
 */
export function describeAlerts(config: ServerConfig): string | undefined {
  const configured =
    config.alertWebhookUrls.length > 0 ||
    config.alertEmail !== undefined ||
    config.alertSpike !== undefined;
  if (config.monitoring.kind !== 'local-inbox') {
    return configured
      ? "alerts: off with SENTRY_DSN (Sentry's own alerts apply); MONITORING_ALERT_* are ignored"
      : undefined;
  }
  const settings = alertSettingsOf(config);
  const names = settings ? alertChannelNames(settings) : [];
  if (names.length === 0) {
    return configured ? 'alerts: no channel is configured, so none are sent' : undefined;
  }
  const spike = config.alertSpike ? `, spikes past ${config.alertSpike.text}` : '';
  const links = config.publicUrl
    ? `links under ${config.publicUrl.origin}`
    : 'alert links will be paths (/errors/issues/<id>): set PUBLIC_URL for links that open';
  return `alerts to ${names.join(', ')} on new and regressed issues${spike}; ${links}`;
}
