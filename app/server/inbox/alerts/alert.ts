/**
 * What an alert says and how a channel answers for it: the one interface between the outbox's
 * sender and the channels (webhooks, email), so a channel knows nothing of the outbox and the
 * sender nothing of HTTP or SMTP (issue 34).
 */

/** Why an alert was raised. `test` is the inbox's "Send a test alert"; `summary` stands for many. */
export type AlertKind = 'new' | 'regressed' | 'spike' | 'test' | 'summary';

/** The issue an alert is about, as the inbox shows it when the alert is raised. */
export interface AlertIssue {
  id: number;
  title: string;
  culprit: string;
  level: string;
  eventCount: number;
  userCount: number;
  /** Epoch milliseconds. */
  firstSeen: number;
  lastSeen: number;
  release: string | null;
  environment: string | null;
  /** The issue's page: absolute under PUBLIC_URL, else a path (`/errors/issues/<id>`). */
  link: string;
}

export interface Alert {
  kind: AlertKind;
  /** Absent for `summary` (and for a `test` alert when the inbox has no issue yet). */
  issue?: AlertIssue;
  /** For `spike`: the threshold crossed, as configured (`100/1h`). */
  spike?: string;
  /** For `summary`: how many alerts it stands for, and the titles of a few of them. */
  summary?: { count: number; titles: string[]; link: string };
}

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

export interface AlertChannel {
  /**
   * Stable while the configuration is, and safe to show: `webhook <host>` or `email <host>`, never
   * a URL's path, query or password.
   */
  readonly name: string;
  send(alert: Alert, signal: AbortSignal): Promise<Delivery>;
}
