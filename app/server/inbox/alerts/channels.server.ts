/**
 * The alert channels the configuration asks for, built in one place: the sender
 * (./alert-sender.server.ts) sends each alert to every channel listed here, and /health and the
 * start line name them by their safe names.
 */
import type { ServerConfig } from '#app/server/env.server';
import type { AlertThreadSettings } from '../store/ingest-protocol';
import type { AlertChannel } from './alert';
import type { AlertOutboxOptions } from './alert-outbox.server';
import { parseSpikeRule } from './alert-policy';
import { emailChannel } from './email-channel.server';
import type { EmailAlertConfig } from './email-config';
import { webhookChannel } from './webhook-channel.server';

/**
 * What the channels are built from, as plain values: it travels to the ingest thread, where the
 * sender runs (decision 1201).
 */
export interface AlertSettings {
  /** MONITORING_ALERT_WEBHOOK_URL, each URL whole (a secret: never logged or shown). */
  webhookUrls: readonly string[];
  /** MONITORING_SMTP_URL and the addresses (the password a secret: never logged or shown). */
  email?: EmailAlertConfig;
}

export function alertChannels(settings: AlertSettings): AlertChannel[] {
  return [
    ...settings.webhookUrls.map((url) => webhookChannel(new URL(url))),
    ...(settings.email ? [emailChannel(settings.email)] : []),
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
  return settings !== undefined && alertChannels(settings).length > 0;
}

/** What the outbox needs of the settings: the channels' names, the spike rule, the links' base. */
export function alertOutboxOptionsOf(
  settings: AlertThreadSettings,
  channels: readonly AlertChannel[] = alertChannels(settings),
): AlertOutboxOptions {
  const spike = settings.spike === undefined ? undefined : parseSpikeRule(settings.spike);
  return {
    channels: channels.map((channel) => channel.name),
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
  const names = settings ? alertChannels(settings).map((channel) => channel.name) : [];
  if (names.length === 0) {
    return configured ? 'alerts: no channel is configured, so none are sent' : undefined;
  }
  const spike = config.alertSpike ? `, spikes past ${config.alertSpike.text}` : '';
  const links = config.publicUrl
    ? `links under ${config.publicUrl.origin}`
    : 'alert links will be paths (/errors/issues/<id>): set PUBLIC_URL for links that open';
  return `alerts to ${names.join(', ')} on new and regressed issues${spike}; ${links}`;
}
