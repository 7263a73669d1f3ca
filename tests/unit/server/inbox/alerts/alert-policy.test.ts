import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseServerEnv } from '#app/server/env.server';
import { alertChannels } from '#app/server/inbox/alerts/alert-delivery.server';
import {
  alertChannelNames,
  alertSettingsOf,
  alertsConfigured,
  describeAlerts,
  FAILING_LINGERS_MS,
  FIRST_BACKOFF_MS,
  FLOOD_LIMIT,
  failingChannels,
  floodPlan,
  GIVE_UP_AFTER_MS,
  MAX_BACKOFF_MS,
  MAX_RETRY_AFTER_MS,
  nextStep,
  parseSpikeRule,
  retryAfterMsOf,
  spikeStep,
  triggerOf,
} from '#app/server/inbox/alerts/alert-policy';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T = 1_800_000_000_000;

describe('triggerOf', () => {
  it.each([
    [{ isNewIssue: true, regressed: false }, 'new'],
    [{ isNewIssue: false, regressed: true }, 'regressed'],
    // A repeat of an open issue is not a trigger.
    [{ isNewIssue: false, regressed: false }, undefined],
  ] as const)('%j → %s', (facts, expected) => {
    expect(triggerOf(facts)).toBe(expected);
  });
});

describe('parseSpikeRule', () => {
  it.each([
    ['100/1h', { count: 100, windowMs: HOUR, text: '100/1h' }],
    [' 5/30s ', { count: 5, windowMs: 30_000, text: '5/30s' }],
    ['1/1d', { count: 1, windowMs: 24 * HOUR, text: '1/1d' }],
    ['20/15m', { count: 20, windowMs: 15 * MIN, text: '20/15m' }],
  ])('%s is a rule', (value, rule) => {
    expect(parseSpikeRule(value)).toEqual(rule);
  });

  it.each([
    ['100', 'must be COUNT/WINDOW'],
    ['100/h', 'must be COUNT/WINDOW'],
    ['100/1w', 'must be COUNT/WINDOW'],
    ['-1/1h', 'must be COUNT/WINDOW'],
    ['0/1h', 'COUNT of at least 1'],
    ['10/0s', 'WINDOW from 1s to 30d'],
    ['10/31d', 'WINDOW from 1s to 30d'],
  ])('%s is refused (%s)', (value, words) => {
    const parsed = parseSpikeRule(value);
    expect('error' in parsed && parsed.error).toContain(words);
  });
});

describe('spikeStep: fixed windows, one alert per issue and window', () => {
  const rule = { count: 3, windowMs: HOUR, text: '3/1h' };
  const hourStart = Math.floor(T / HOUR) * HOUR;
  it.each([
    ['the first event', undefined, hourStart + 1, { count: 1, alerted: false }, false],
    [
      'the one that reaches COUNT',
      { windowStart: hourStart, count: 2, alerted: false },
      hourStart + 5,
      { count: 3, alerted: true },
      true,
    ],
    [
      'one past it in the same window',
      { windowStart: hourStart, count: 3, alerted: true },
      hourStart + 6,
      { count: 4, alerted: true },
      false,
    ],
    [
      'the next window starts again',
      { windowStart: hourStart, count: 50, alerted: true },
      hourStart + HOUR,
      { count: 1, alerted: false },
      false,
    ],
  ])('%s', (_name, before, at, after, alert) => {
    const step = spikeStep(before, at, rule);
    expect(step.alert).toBe(alert);
    expect(step.window).toMatchObject(after);
  });

  it('COUNT events in a window alert exactly once however many follow', () => {
    let window: ReturnType<typeof spikeStep>['window'] | undefined;
    let alerts = 0;
    for (let n = 0; n < 100; n++) {
      const step = spikeStep(window, hourStart + n * 1000, rule);
      window = step.window;
      if (step.alert) alerts++;
    }
    expect(alerts).toBe(1);
  });
});

describe('floodPlan: a few alerts a minute, then one summary', () => {
  it.each([
    ['none yet', [], { kind: 'alone' }],
    ['four in the minute', [T - 40_000, T - 30_000, T - 20_000, T - 1], { kind: 'alone' }],
    [
      'five in the minute: the summary waits for the oldest to leave it',
      [T - 50_000, T - 40_000, T - 30_000, T - 20_000, T - 1],
      { kind: 'summary', dueAt: T - 50_000 + MIN },
    ],
    [
      'five, but one over a minute ago',
      [T - MIN, T - 40_000, T - 30_000, T - 20_000, T - 1],
      { kind: 'alone' },
    ],
  ])('%s', (_name, recent, plan) => {
    expect(floodPlan(recent, T)).toEqual(plan);
  });

  it('a flood of a hundred in a minute is FLOOD_LIMIT alerts and summaries', () => {
    const alone: number[] = [];
    let summarised = 0;
    for (let n = 0; n < 100; n++) {
      const at = T + n * 500;
      if (floodPlan(alone, at).kind === 'alone') alone.push(at);
      else summarised++;
    }
    expect(alone).toHaveLength(FLOOD_LIMIT);
    expect(summarised).toBe(100 - FLOOD_LIMIT);
  });
});

describe('nextStep: back-off and give-up', () => {
  it.each([
    ['sent', { outcome: 'sent' }, 1, 0, { state: 'sent' }],
    [
      'a 4xx fails at once',
      { outcome: 'failed', reason: 'answered 404' },
      1,
      0,
      { state: 'failed', reason: 'answered 404', gaveUp: false },
    ],
    [
      'the first retry waits FIRST_BACKOFF_MS',
      { outcome: 'retry', reason: 'answered 503' },
      1,
      0,
      { state: 'pending', notBefore: T + FIRST_BACKOFF_MS, reason: 'answered 503' },
    ],
    [
      'each next retry doubles',
      { outcome: 'retry', reason: 'connection refused' },
      4,
      0,
      { state: 'pending', notBefore: T + FIRST_BACKOFF_MS * 8, reason: 'connection refused' },
    ],
    [
      'up to MAX_BACKOFF_MS',
      { outcome: 'retry', reason: 'answered 500' },
      40,
      0,
      { state: 'pending', notBefore: T + MAX_BACKOFF_MS, reason: 'answered 500' },
    ],
    [
      "a 429's Retry-After is honoured",
      { outcome: 'retry', reason: 'answered 429', retryAfterMs: 120_000 },
      1,
      0,
      { state: 'pending', notBefore: T + 120_000, reason: 'answered 429' },
    ],
    [
      'a Retry-After of a day is cut to MAX_RETRY_AFTER_MS',
      { outcome: 'retry', reason: 'answered 429', retryAfterMs: 24 * HOUR },
      1,
      0,
      { state: 'pending', notBefore: T + MAX_RETRY_AFTER_MS, reason: 'answered 429' },
    ],
    [
      'a Retry-After of 0 still waits FIRST_BACKOFF_MS',
      { outcome: 'retry', reason: 'answered 503', retryAfterMs: 0 },
      1,
      0,
      { state: 'pending', notBefore: T + FIRST_BACKOFF_MS, reason: 'answered 503' },
    ],
    [
      'still failing a day after it was raised: given up',
      { outcome: 'retry', reason: 'no answer within 10000 ms' },
      90,
      GIVE_UP_AFTER_MS,
      { state: 'failed', reason: 'gave up after a day: no answer within 10000 ms', gaveUp: true },
    ],
  ] as const)('%s', (_name, delivery, attempts, age, step) => {
    expect(nextStep(delivery, attempts, T - age, T)).toEqual(step);
  });
});

describe('retryAfterMsOf', () => {
  it.each([
    [null, undefined],
    ['30', 30_000],
    [' 5 ', 5_000],
    [new Date(T + 90_000).toUTCString(), 90_000],
    [new Date(T - 90_000).toUTCString(), 0],
    ['soon', undefined],
  ])('%s → %s', (header, ms) => {
    expect(retryAfterMsOf(header, T)).toBe(ms);
  });
});

describe('failingChannels', () => {
  it.each([
    ['no attempt yet', [], []],
    [
      'the latest attempt was sent',
      [{ channel: 'webhook a', at: T, sent: true, reason: null }],
      [],
    ],
    [
      'the latest attempt failed',
      [{ channel: 'webhook a', at: T - 1000, sent: false, reason: 'answered 503' }],
      ['webhook a (answered 503)'],
    ],
    [
      'it failed over an hour ago, and nothing was tried since',
      [{ channel: 'webhook a', at: T - FAILING_LINGERS_MS, sent: false, reason: 'answered 503' }],
      [],
    ],
  ])('%s', (_name, latest, failing) => {
    expect(failingChannels(latest, T)).toEqual(failing);
  });
});

function config(env: Record<string, string>) {
  const result = parseServerEnv(env);
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

const HOOKS =
  'https://hooks.slack.com/services/T/B/SECRET,https://discord.com/api/webhooks/1/SECRET';

describe('alertChannelNames', () => {
  it('names one webhook channel per URL by its host, as the sender builds them', () => {
    const settings = alertSettingsOf(config({ MONITORING_ALERT_WEBHOOK_URL: HOOKS }));
    expect(settings && alertChannelNames(settings)).toEqual(
      settings && alertChannels(settings).map((channel) => channel.name),
    );
    expect(settings && alertChannelNames(settings)).toEqual([
      'webhook hooks.slack.com',
      'webhook discord.com',
    ]);
  });

  it('has none in Sentry mode', () => {
    const sentry = config({
      MONITORING_ALERT_WEBHOOK_URL: HOOKS,
      SENTRY_DSN: 'https://k@o1.ingest.us.sentry.io/2',
    });
    expect(alertSettingsOf(sentry)).toBeUndefined();
  });
});

describe('describeAlerts: the start line', () => {
  it.each([
    ['nothing configured', {}, undefined],
    [
      'hooks without PUBLIC_URL',
      { MONITORING_ALERT_WEBHOOK_URL: HOOKS },
      'alerts to webhook hooks.slack.com, webhook discord.com on new and regressed issues; alert links will be paths (/errors/issues/<id>): set PUBLIC_URL for links that open',
    ],
    [
      'a hook, a spike rule and PUBLIC_URL',
      {
        MONITORING_ALERT_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/SECRET',
        MONITORING_ALERT_SPIKE: '100/1h',
        PUBLIC_URL: 'https://app.example.com/',
      },
      'alerts to webhook hooks.slack.com on new and regressed issues, spikes past 100/1h; links under https://app.example.com',
    ],
    [
      'a spike rule without a channel',
      { MONITORING_ALERT_SPIKE: '100/1h' },
      'alerts: no channel is configured, so none are sent',
    ],
    [
      'hooks in Sentry mode',
      { MONITORING_ALERT_WEBHOOK_URL: HOOKS, SENTRY_DSN: 'https://k@o1.ingest.us.sentry.io/2' },
      "alerts: off with SENTRY_DSN (Sentry's own alerts apply); MONITORING_ALERT_* are ignored",
    ],
  ])('%s', (_name, env, line) => {
    const said = describeAlerts(config(env));
    expect(said).toBe(line);
    expect(said ?? '').not.toContain('SECRET');
  });
});

describe('the start line with email alerts', () => {
  afterEach(() => vi.restoreAllMocks());

  it('names the email channel without building its transport', () => {
    const createTransport = vi.spyOn(nodemailer, 'createTransport');
    const email = config({
      MONITORING_SMTP_URL: 'smtp://mail.example.com',
      MONITORING_ALERT_EMAIL_TO: 'ops@example.com',
    });
    expect(alertsConfigured(email)).toBe(true);
    expect(describeAlerts(email)).toMatch(/^alerts to email mail\.example\.com /);
    expect(createTransport).not.toHaveBeenCalled();
  });
});
