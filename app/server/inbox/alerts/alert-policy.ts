/**
 * When the inbox raises an alert and how its delivery is paced (issue 34), as pure functions
 * with the clock passed in: the triggers, the spike rule, the flood limit, the back-off and the
 * give-up, and when a channel counts as failing. The outbox (./alert-outbox.server.ts) and the
 * sender (./alert-sender.server.ts) apply them; tests/unit/server/inbox/alert-policy.test.ts
 * holds their tables.
 */
import type { AlertKind, Delivery } from './alert';

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
