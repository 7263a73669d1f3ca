import { describe, expect, it } from 'vitest';
import { parseServerEnv } from '#app/server/env.server';
import {
  alertChannels,
  alertSettingsOf,
  describeAlerts,
} from '#app/server/inbox/alerts/channels.server';

function config(env: Record<string, string>) {
  const result = parseServerEnv(env);
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

const HOOKS =
  'https://hooks.slack.com/services/T/B/SECRET,https://discord.com/api/webhooks/1/SECRET';

describe('alertChannels', () => {
  it('builds one webhook channel per URL, each named by its host', () => {
    const settings = alertSettingsOf(config({ MONITORING_ALERT_WEBHOOK_URL: HOOKS }));
    expect(settings && alertChannels(settings).map((channel) => channel.name)).toEqual([
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
