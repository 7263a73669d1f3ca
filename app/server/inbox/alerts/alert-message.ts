/**
 * What an alert says, in one line and as a webhook's JSON: pure, so every channel words an
 * alert alike and the tests read the words. Links go under PUBLIC_URL, else they are paths.
 */
import type { Alert, AlertIssue } from './alert';

/** Discord refuses a `content` over 2,000 characters; Slack folds long lines: cut well before. */
const MAX_LINE = 1_500;

/** An inbox page under PUBLIC_URL (its path prefix kept), or the bare path without one. */
export function inboxLink(publicUrl: string | undefined, path: string): string {
  if (publicUrl === undefined) return path;
  return `${publicUrl.replace(/\/+$/, '')}${path}`;
}

export function issueLink(publicUrl: string | undefined, issueId: number): string {
  return inboxLink(publicUrl, `/errors/issues/${issueId}`);
}

/** The alert in one line: what happened, to which issue, and where to read it. */
export function alertLine(alert: Alert): string {
  const line = (() => {
    switch (alert.kind) {
      case 'summary': {
        const summary = alert.summary ?? { count: 0, titles: [], link: '/errors' };
        const titles = summary.titles.join('; ');
        return `and ${summary.count} more alert${summary.count === 1 ? '' : 's'}${titles ? `: ${titles}` : ''} · ${summary.link}`;
      }
      case 'test':
        return alert.issue
          ? `Test alert from the error inbox, about: ${issueWords(alert.issue)}`
          : 'Test alert from the error inbox: alerts reach this channel';
      default: {
        const issue = alert.issue;
        const what = headOf(alert);
        return issue ? `${what}: ${issueWords(issue)}` : what;
      }
    }
  })();
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line;
}

function headOf(alert: Alert): string {
  if (alert.kind === 'new') return 'New issue';
  if (alert.kind === 'regressed') return 'Regressed';
  return `Spiking (${alert.spike ?? 'spike'})`;
}

function issueWords(issue: AlertIssue): string {
  const where = issue.culprit ? ` in ${issue.culprit}` : '';
  const events = `${issue.eventCount} event${issue.eventCount === 1 ? '' : 's'}`;
  const environment = issue.environment ? ` · ${issue.environment}` : '';
  return `${oneLine(issue.title)}${oneLine(where)}${environment} · ${events} · ${issue.link}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** The JSON a webhook receives (docs/alerts.md): Slack and Mattermost read `text`, Discord `content`. */
export function webhookBody(alert: Alert): Record<string, unknown> {
  const text = alertLine(alert);
  const issue = alert.issue;
  return {
    text,
    content: text,
    kind: alert.kind,
    ...(alert.spike ? { spike: alert.spike } : {}),
    ...(issue
      ? {
          issue: {
            id: issue.id,
            title: issue.title,
            culprit: issue.culprit,
            level: issue.level,
            eventCount: issue.eventCount,
            users: issue.userCount,
            firstSeen: new Date(issue.firstSeen).toISOString(),
            lastSeen: new Date(issue.lastSeen).toISOString(),
            release: issue.release,
            environment: issue.environment,
            link: issue.link,
          },
        }
      : {}),
    ...(alert.summary ? { summary: alert.summary } : {}),
  };
}
