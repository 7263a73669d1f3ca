import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { IssueList } from '#app/components/inbox/IssueList';
import type { ListedIssue } from '#app/server/inbox/inbox.functions';
import { renderInRouter } from './in-router';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';
const NOW = Date.UTC(2026, 10, 26, 12, 30);
const HOUR = 3_600_000;

const issue = (overrides: Partial<ListedIssue> = {}): ListedIssue => ({
  id: 7,
  title: 'TypeError: x is undefined',
  culprit: 'example-page.js in handleThrowClick',
  level: 'error',
  status: 'unresolved',
  triage: { status: 'unresolved' },
  regressed: false,
  firstSeen: NOW - 49 * HOUR,
  lastSeen: NOW,
  count: 12,
  hourly: [...Array(22).fill(0), 4, 8],
  environments: ['production'],
  lastRelease: 'app@1.4.0',
  users: 3,
  usersPastCap: false,
  ...overrides,
});

const rows = () => within(screen.getByRole('list', { name: 'Issues' })).getAllByRole('listitem');

describe('IssueList', () => {
  it('shows one row per issue: title linking to its page, culprit, count, seen times, environment, release, last 24 hours', async () => {
    await renderInRouter(<IssueList issues={[issue()]} />);
    const [row] = rows();
    const title = within(row as HTMLElement).getByRole('link', {
      name: 'TypeError: x is undefined',
    });
    expect(title.getAttribute('href')).toBe('/errors/issues/7');
    const text = row?.textContent ?? '';
    expect(text).toContain('example-page.js in handleThrowClick');
    expect(text).toContain('12 events');
    expect(text).toContain('Last seen2026-11-26 12:30:00 UTC');
    expect(text).toContain('First seen2026-11-24 11:30:00 UTC');
    expect(text).toContain('Latest releaseapp@1.4.0');
    expect(within(row as HTMLElement).getByText('production').className).toBe('env env-production');
    // Found by its accessible name, which says what the sparkline draws.
    within(row as HTMLElement).getByRole('img', {
      name: '12 events in the last 24 hours, at most 8 in an hour',
    });
  });

  it.each([
    [1, false, '1 user'],
    [3, false, '3 users'],
    [0, false, '0 users'],
    [1_000, true, '1,000+ users'],
  ])(
    'says whom it hit: %i users (past the cap: %s) is "%s"',
    async (users, usersPastCap, shown) => {
      await renderInRouter(<IssueList issues={[issue({ users, usersPastCap })]} />);
      expect(rows()[0]?.querySelector('.issue-count')?.textContent).toBe(`12 events${shown}`);
    },
  );

  it('names the top frame the source maps give over the stored culprit', async () => {
    await renderInRouter(
      <IssueList
        issues={[issue({ topFrame: 'app/routes/sentry-example-page/index.tsx:38 in onClick' })]}
      />,
    );
    expect(rows()[0]?.textContent).toContain(
      'app/routes/sentry-example-page/index.tsx:38 in onClick',
    );
    expect(rows()[0]?.textContent).not.toContain('handleThrowClick');
  });

  it('tells development from production at a glance, and marks regressed, resolved and ignored issues', async () => {
    await renderInRouter(
      <IssueList
        issues={[
          issue({ id: 1, regressed: true }),
          issue({ id: 2, environments: ['development'], status: 'resolved' }),
          issue({ id: 3, environments: ['staging'], status: 'ignored' }),
        ]}
      />,
    );
    const [regressed, resolved, ignored] = rows() as HTMLElement[];
    const badge = (row: HTMLElement | undefined, name: string) =>
      within(row as HTMLElement).getByText(name);
    expect(badge(regressed, 'production').className).toBe('env env-production');
    expect(badge(resolved, 'development').className).toBe('env env-development');
    expect(badge(ignored, 'staging').className).toBe('env env-other');
    expect(badge(regressed, 'Regressed').className).toBe('badge-status regressed');
    expect(regressed?.className).toContain('regressed');
    // The usual state goes without a word; the others are named.
    expect(within(regressed as HTMLElement).queryByText('Unresolved')).toBeNull();
    expect(badge(resolved, 'Resolved').className).toBe('badge-status status-resolved');
    expect(badge(ignored, 'Ignored').className).toBe('badge-status status-ignored');
    expect(within(resolved as HTMLElement).queryByText('Regressed')).toBeNull();
  });

  it('offers each row to the bulk form when selectable, and says what a mute holds', async () => {
    await renderInRouter(
      <IssueList
        selectable
        issues={[
          issue(),
          issue({
            id: 8,
            title: 'Muted one',
            status: 'ignored',
            count: 137,
            triage: { status: 'ignored', mute: { kind: 'events', target: 200, count: 100 } },
          }),
        ]}
      />,
    );
    const boxes = rows().map((row) => within(row).getByRole('checkbox') as HTMLInputElement);
    expect(boxes.map((box) => [box.name, box.value, box.getAttribute('form')])).toEqual([
      ['issueId', '7', 'bulk-triage'],
      ['issueId', '8', 'bulk-triage'],
    ]);
    expect(screen.getByRole('checkbox', { name: 'Select Muted one' })).toBe(boxes[1]);
    expect(rows()[1]?.querySelector('.triage-note')?.textContent).toBe(
      ' Ignored until 100 more events (37 so far)',
    );
    expect(rows()[0]?.querySelector('.triage-note')).toBeNull();
  });

  it('has no checkbox when it is not selectable', async () => {
    await renderInRouter(<IssueList issues={[issue()]} />);
    expect(within(rows()[0] as HTMLElement).queryByRole('checkbox')).toBeNull();
  });

  it('keeps hostile titles and culprits as text', async () => {
    await renderInRouter(<IssueList issues={[issue({ title: HOSTILE, culprit: HOSTILE })]} />);
    expect(screen.getByRole('link', { name: HOSTILE }).getAttribute('href')).toBe(
      '/errors/issues/7',
    );
    expect(document.querySelector('img')).toBeNull();
  });
});
