/**
 * Alerts in the inbox (issue 34): the channels with each one's latest attempt and the "Send a
 * test alert" form, on the list; an issue's alert history, on its page. Channels appear by
 * their safe names (`webhook <host>`), never by URL.
 */
import type { AlertHistoryEntry } from '#app/server/inbox/alerts/alert-outbox.server';
import { type AlertChannelStatus, sendTestAlert } from '#app/server/inbox/inbox.functions';
import { countOf, formatUtc, isoOf } from './format';

/**
 * Where alerts go and how the last one went; a plain form POST sends a test alert (it works
 * before hydration, under the clear form's cross-site rules). Nothing without a channel.
 */
export function AlertChannels({ channels }: { channels: AlertChannelStatus[] }) {
  if (channels.length === 0) return null;
  return (
    <section aria-labelledby="alerts-heading" className="inbox-alerts">
      <h2 id="alerts-heading">Alerts</h2>
      <ul>
        {channels.map((channel) => (
          <li key={channel.name}>
            {channel.name}: {latestWords(channel)}
          </li>
        ))}
      </ul>
      <form method="post" action={sendTestAlert.url} aria-label="Send a test alert">
        <input type="hidden" name="send" value="test" />
        <button type="submit">Send a test alert</button>
      </form>
    </section>
  );
}

function latestWords(channel: AlertChannelStatus): string {
  const latest = channel.latest;
  if (!latest) return 'nothing sent yet';
  const at = formatUtc(latest.at);
  return latest.sent ? `last alert sent ${at}` : `last attempt failed ${at} (${latest.reason})`;
}

const KIND_WORDS: Record<AlertHistoryEntry['kind'], string> = {
  new: 'New issue',
  regressed: 'Regressed',
  spike: 'Spike',
  test: 'Test alert',
  summary: 'Summary',
};

/** The issue's alerts, newest first, one row per channel: sent, pending (retrying), failed. */
export function AlertHistory({ alerts }: { alerts: AlertHistoryEntry[] }) {
  return (
    <section aria-labelledby="alert-history-heading">
      <h2 id="alert-history-heading">Alerts</h2>
      {alerts.length === 0 ? (
        <p>No alert was raised for this issue.</p>
      ) : (
        <ul className="alert-history">
          {alerts.map((alert, index) => (
            // Alerts and channels repeat; the list is rebuilt whole on each load.
            // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own
            <li key={index}>
              <time dateTime={isoOf(alert.raisedAt)}>{formatUtc(alert.raisedAt)}</time>{' '}
              {`${KIND_WORDS[alert.kind]} to ${alert.channel}: ${stateWords(alert)}`}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function stateWords(alert: AlertHistoryEntry): string {
  const tries = countOf(alert.attempts, 'attempt');
  if (alert.state === 'sent') return alert.attempts > 1 ? `sent (after ${tries})` : 'sent';
  if (alert.state === 'failed') return `failed: ${alert.reason ?? 'unknown'} (${tries})`;
  return alert.reason ? `pending, retrying: ${alert.reason} (${tries} so far)` : 'pending';
}
