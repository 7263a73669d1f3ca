import { describe, expect, it } from 'vitest';
import {
  type Alert,
  type AlertIssue,
  alertEmailOf,
  alertLine,
  issueLink,
  SUBJECT_MAX_CHARS,
  webhookBody,
} from '#app/server/inbox/alerts/alert-message';

const issue: AlertIssue = {
  id: 7,
  title: 'TypeError: x is\nundefined',
  culprit: 'checkout.js in pay',
  level: 'error',
  eventCount: 3,
  userCount: 2,
  firstSeen: Date.UTC(2026, 0, 1),
  lastSeen: Date.UTC(2026, 0, 2),
  release: 'app@1.4.0',
  environment: 'production',
  link: 'https://errors.example.com/errors/issues/7',
};

describe('alertLine', () => {
  it.each<[string, Alert, string]>([
    [
      'new',
      { kind: 'new', issue },
      'New issue: TypeError: x is undefined in checkout.js in pay · production · 3 events · https://errors.example.com/errors/issues/7',
    ],
    [
      'regressed',
      { kind: 'regressed', issue },
      'Regressed: TypeError: x is undefined in checkout.js in pay · production · 3 events · https://errors.example.com/errors/issues/7',
    ],
    [
      'spike',
      { kind: 'spike', issue, spike: '100/1h' },
      'Spiking (100/1h): TypeError: x is undefined in checkout.js in pay · production · 3 events · https://errors.example.com/errors/issues/7',
    ],
    [
      'summary',
      { kind: 'summary', summary: { count: 37, titles: ['A', 'B'], link: '/errors' } },
      'and 37 more alerts: A; B · /errors',
    ],
    [
      'test without an issue',
      { kind: 'test' },
      'Test alert from the error inbox: alerts reach this channel',
    ],
  ])('%s', (_name, alert, line) => {
    expect(alertLine(alert)).toBe(line);
  });

  it('cuts a long title so the line fits a Discord message', () => {
    const line = alertLine({ kind: 'new', issue: { ...issue, title: 'x'.repeat(5000) } });
    expect(line.length).toBeLessThanOrEqual(1500);
    expect(line.endsWith('…')).toBe(true);
  });
});

describe('issueLink', () => {
  it.each([
    [undefined, '/errors/issues/7'],
    ['https://errors.example.com/', 'https://errors.example.com/errors/issues/7'],
    ['https://example.com/app/', 'https://example.com/app/errors/issues/7'],
  ])('under %s: %s', (publicUrl, link) => {
    expect(issueLink(publicUrl, 7)).toBe(link);
  });
});

describe('webhookBody', () => {
  it('carries text (Slack, Mattermost), content (Discord) and the issue', () => {
    const body = webhookBody({ kind: 'new', issue });
    expect(body.text).toBe(body.content);
    expect(body.issue).toEqual({
      id: 7,
      title: 'TypeError: x is\nundefined',
      culprit: 'checkout.js in pay',
      level: 'error',
      eventCount: 3,
      users: 2,
      firstSeen: '2026-01-01T00:00:00.000Z',
      lastSeen: '2026-01-02T00:00:00.000Z',
      release: 'app@1.4.0',
      environment: 'production',
      link: 'https://errors.example.com/errors/issues/7',
    });
  });
});

const ISSUE: AlertIssue = {
  id: 3,
  title: 'Error: checkout failed',
  culprit: 'app/routes/about.tsx in submit',
  level: 'error',
  eventCount: 1,
  userCount: 1,
  firstSeen: Date.UTC(2026, 10, 28, 3, 0, 0),
  lastSeen: Date.UTC(2026, 10, 28, 3, 0, 0),
  release: null,
  environment: 'production',
  link: '/errors/issues/3',
};

describe('alertEmailOf', () => {
  it.each<[string, Alert, string]>([
    ['a new issue', { kind: 'new', issue: ISSUE }, 'New issue: Error: checkout failed'],
    ['a regression', { kind: 'regressed', issue: ISSUE }, 'Regressed: Error: checkout failed'],
    ['a spike', { kind: 'spike', issue: ISSUE, spike: '100/1h' }, 'Spike: Error: checkout failed'],
    ['a test alert', { kind: 'test' }, 'Test alert'],
    ['a test alert with an issue', { kind: 'test', issue: ISSUE }, 'Test alert'],
    [
      'a summary',
      { kind: 'summary', summary: { count: 12, titles: ['A'], link: '/errors' } },
      '12 more alerts',
    ],
  ])('titles %s', (_, alert, subject) => {
    expect(alertEmailOf(alert).subject).toBe(subject);
  });

  it.each<[string, Alert, string[]]>([
    [
      'a new issue: what, where, how often, when, and where to look',
      { kind: 'new', issue: ISSUE },
      [
        'A new issue in the error inbox.',
        '',
        'Error: checkout failed',
        'where: app/routes/about.tsx in submit',
        'level: error',
        'events: 1, 1 user',
        'first seen: 2026-11-28T03:00:00Z',
        'last seen: 2026-11-28T03:00:00Z',
        'environment: production',
        'Open the issue: /errors/issues/3 (set PUBLIC_URL for a link)',
      ],
    ],
    [
      'a spike, with its threshold',
      { kind: 'spike', issue: { ...ISSUE, release: 'shop@2.0.0' }, spike: '100/1h' },
      ['An issue crossed its spike threshold (100/1h).', 'release: shop@2.0.0'],
    ],
    [
      'a test alert without an issue',
      { kind: 'test' },
      ['A test alert from the error inbox: email alerts reach you.'],
    ],
    [
      'a summary, with a few titles and the inbox',
      {
        kind: 'summary',
        summary: {
          count: 40,
          titles: ['Error: one', 'Error: two'],
          link: 'https://app.example.com/errors',
        },
      },
      [
        '40 more alerts were held back, so that a flood does not become a flood of mail. Among them:',
        '- Error: one',
        '- Error: two',
        'See them in the inbox: https://app.example.com/errors',
      ],
    ],
  ])('writes the text of %s', (_, alert, lines) => {
    const text = alertEmailOf(alert).text;
    const textLines = text.split('\n');
    for (const line of lines) expect(textLines).toContain(line);
  });

  it('puts a whole link in an anchor, and a path in plain text', () => {
    const whole = alertEmailOf({
      kind: 'new',
      issue: { ...ISSUE, link: 'https://app.example.com/errors/issues/3?x=1&y=2' },
    });
    expect(whole.html).toContain(
      '<a href="https://app.example.com/errors/issues/3?x=1&amp;y=2">Open the issue</a>',
    );
    const path = alertEmailOf({ kind: 'new', issue: ISSUE });
    expect(path.html).not.toContain('<a ');
    expect(path.html).toContain('Open the issue: /errors/issues/3 (set PUBLIC_URL for a link)');
  });

  it('escapes every value from an event in the HTML', () => {
    const html = alertEmailOf({
      kind: 'new',
      issue: {
        ...ISSUE,
        title: '<script>alert("x")</script>',
        culprit: "<a href='//evil'>click</a>",
        release: 'a&b',
        environment: '<b>prod</b>',
      },
    }).html;
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('where: &lt;a href=&#39;//evil&#39;&gt;click&lt;/a&gt;');
    expect(html).toContain('release: a&amp;b');
    expect(html).toContain('environment: &lt;b&gt;prod&lt;/b&gt;');
    expect(html).not.toMatch(/<script|<a href='|<b>/);
  });

  it('escapes the titles of a summary in the HTML', () => {
    const html = alertEmailOf({
      kind: 'summary',
      summary: { count: 2, titles: ['<img src=x onerror=alert(1)>'], link: '/errors' },
    }).html;
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img');
  });

  it.each([
    ['line breaks', 'one\r\ntwo\nthree', 'New issue: one two three'],
    ['tabs and runs of spaces', 'a\t\t b', 'New issue: a b'],
    ['Unicode line separators and bidi overrides', 'a\u2028b\u202ec', 'New issue: a b c'],
    ['NUL and other controls', 'a\u0000b\u001bc', 'New issue: a b c'],
  ])('makes the subject one line: %s', (_, title, subject) => {
    expect(alertEmailOf({ kind: 'new', issue: { ...ISSUE, title } }).subject).toBe(subject);
  });

  it('caps a long subject, with an ellipsis, without splitting a character', () => {
    const subject = alertEmailOf({
      kind: 'new',
      issue: { ...ISSUE, title: '😀'.repeat(500) },
    }).subject;
    expect([...subject]).toHaveLength(SUBJECT_MAX_CHARS);
    expect(subject).toMatch(/^New issue: (😀)+…$/u);
  });
});
