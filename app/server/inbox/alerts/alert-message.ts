/**
 * What an alert is and what it says, pure, so every channel words an alert alike and the tests
 * read the words: the alert and its issue as the outbox keeps them (issue 34), the links (under
 * PUBLIC_URL, else paths), the one line and the JSON a webhook receives, and an email's subject,
 * text and HTML. First, why an alert was raised: `test` is the inbox's "Send a test alert",
 * `summary` stands for many.
 */
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

/** An alert as the outbox keeps it and every channel words it. */
export interface Alert {
  kind: AlertKind;
  /** Absent for `summary` (and for a `test` alert when the inbox has no issue yet). */
  issue?: AlertIssue;
  /** For `spike`: the threshold crossed, as configured (`100/1h`). */
  spike?: string;
  /** For `summary`: how many alerts it stands for, and the titles of a few of them. */
  summary?: { count: number; titles: string[]; link: string };
}

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
  return `${collapseSpaces(issue.title)}${collapseSpaces(where)}${environment} · ${events} · ${issue.link}`;
}

/** Runs of whitespace as one space: the webhook's line keeps its own spacing otherwise. */
function collapseSpaces(text: string): string {
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

/**
 * An alert's email: its subject, plain text and HTML. An issue's title and culprit come from the
 * events that attackers can send, so every value is made one line where a line is expected and
 * escaped in the HTML; the subject is capped so a long title stays readable in a mail client's
 * list.
 */
export interface AlertEmail {
  subject: string;
  text: string;
  html: string;
}

/** Most clients show 60–80 characters of a subject; past this it only pushes the date away. */
export const SUBJECT_MAX_CHARS = 120;
/** A title in the body: long enough for any real message, short of a mail storm of its own. */
const BODY_VALUE_MAX_CHARS = 1000;

export function alertEmailOf(alert: Alert): AlertEmail {
  const lines = bodyOf(alert);
  return {
    subject: oneLine(subjectOf(alert), SUBJECT_MAX_CHARS),
    text: `${lines.map(textOf).join('\n')}\n`,
    html: `<!doctype html>\n<html><body style="font-family: sans-serif">\n${lines.map(htmlOf).join('\n')}\n</body></html>\n`,
  };
}

function subjectOf(alert: Alert): string {
  const title = alert.issue?.title ?? '';
  switch (alert.kind) {
    case 'new':
      return `New issue: ${title}`;
    case 'regressed':
      return `Regressed: ${title}`;
    case 'spike':
      return `Spike: ${title}`;
    case 'test':
      return 'Test alert';
    case 'summary':
      return `${alert.summary?.count ?? 0} more alerts`;
  }
}

/** One piece of the body, written once and rendered as text and as HTML. */
type Line =
  | { kind: 'lead'; text: string }
  | { kind: 'title'; text: string }
  | { kind: 'field'; name: string; value: string }
  | { kind: 'item'; text: string }
  | { kind: 'link'; label: string; href: string };

function bodyOf(alert: Alert): Line[] {
  const lead = (text: string): Line[] => [{ kind: 'lead', text }];
  switch (alert.kind) {
    case 'new':
      return [...lead('A new issue in the error inbox.'), ...issueLines(alert.issue)];
    case 'regressed':
      return [
        ...lead('An issue that was resolved or muted is happening again.'),
        ...issueLines(alert.issue),
      ];
    case 'spike':
      return [
        ...lead(`An issue crossed its spike threshold (${alert.spike ?? 'as configured'}).`),
        ...issueLines(alert.issue),
      ];
    case 'test':
      return [
        ...lead('A test alert from the error inbox: email alerts reach you.'),
        ...(alert.issue ? issueLines(alert.issue) : []),
      ];
    case 'summary': {
      const summary = alert.summary;
      return [
        ...lead(
          `${summary?.count ?? 0} more alerts were held back, so that a flood does not become a flood of mail. Among them:`,
        ),
        ...(summary?.titles ?? []).map((title): Line => ({ kind: 'item', text: title })),
        ...(summary ? linkLines('See them in the inbox', summary.link) : []),
      ];
    }
  }
}

function issueLines(issue: AlertIssue | undefined): Line[] {
  if (!issue) return [];
  const optional = (name: string, value: string | null): Line[] =>
    value ? [{ kind: 'field', name, value }] : [];
  return [
    { kind: 'title', text: issue.title },
    ...optional('where', issue.culprit),
    { kind: 'field', name: 'level', value: issue.level },
    {
      kind: 'field',
      name: 'events',
      value: `${issue.eventCount}, ${issue.userCount} ${issue.userCount === 1 ? 'user' : 'users'}`,
    },
    { kind: 'field', name: 'first seen', value: dateOf(issue.firstSeen) },
    { kind: 'field', name: 'last seen', value: dateOf(issue.lastSeen) },
    ...optional('release', issue.release),
    ...optional('environment', issue.environment),
    ...linkLines('Open the issue', issue.link),
  ];
}

/** A path is only a link on the server's own pages: say how to get a whole one. */
function linkLines(label: string, link: string): Line[] {
  if (isWebUrl(link)) return [{ kind: 'link', label, href: link }];
  return [{ kind: 'field', name: label, value: `${link} (set PUBLIC_URL for a link)` }];
}

function isWebUrl(link: string): boolean {
  return /^https?:\/\//i.test(link);
}

function dateOf(epochMs: number): string {
  const date = new Date(epochMs);
  return Number.isNaN(date.getTime()) ? 'unknown' : `${date.toISOString().slice(0, 19)}Z`;
}

function textOf(line: Line): string {
  switch (line.kind) {
    case 'lead':
      return `${line.text}\n`;
    case 'title':
      return oneLine(line.text, BODY_VALUE_MAX_CHARS);
    case 'field':
      return `${line.name}: ${oneLine(line.value, BODY_VALUE_MAX_CHARS)}`;
    case 'item':
      return `- ${oneLine(line.text, BODY_VALUE_MAX_CHARS)}`;
    case 'link':
      return `\n${line.label}: ${oneLine(line.href, BODY_VALUE_MAX_CHARS)}`;
  }
}

function htmlOf(line: Line): string {
  const html = (value: string) => escapeHtml(oneLine(value, BODY_VALUE_MAX_CHARS));
  switch (line.kind) {
    case 'lead':
      return `<p>${html(line.text)}</p>`;
    case 'title':
      return `<p><strong>${html(line.text)}</strong></p>`;
    case 'field':
      return `<div>${html(line.name)}: ${html(line.value)}</div>`;
    case 'item':
      return `<div>&bull; ${html(line.text)}</div>`;
    case 'link':
      return `<p><a href="${html(line.href)}">${html(line.label)}</a></p>`;
  }
}

/**
 * Whitespace and control characters (line and paragraph separators, bidi controls included)
 * become one space, and the value is cut at `max` characters with an ellipsis.
 */
export function oneLine(value: string, max: number): string {
  const flat = value.replace(UNPRINTABLE, ' ').trim();
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const UNPRINTABLE = /[\s\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;

/** Five characters, escaped for text and for a quoted attribute: too small for a library. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => HTML_ENTITIES[char as keyof typeof HTML_ENTITIES]);
}

const HTML_ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
