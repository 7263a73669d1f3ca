import { describe, expect, it } from 'vitest';
import type { Alert, AlertIssue } from '#app/server/inbox/alerts/alert';
import { alertLine, issueLink, webhookBody } from '#app/server/inbox/alerts/alert-message';

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
