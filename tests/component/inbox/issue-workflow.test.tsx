import { render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { IssueWorkflow } from '#app/components/inbox/InboxActions';
import type { TriageState } from '#app/server/inbox/triage';

// The server function's address, as Start's compiler gives it to the page.
vi.mock('#app/server/inbox/inbox.functions', () => ({
  triageIssues: { url: '/_server/triage-issues' },
}));

const NOW = Date.UTC(2026, 10, 28, 12, 0);

/** Each form as the browser would post it: its button, where to, and its fields. */
function forms() {
  return [...document.querySelectorAll('form')].map((form) => ({
    button: within(form).getByRole('button').textContent,
    method: form.getAttribute('method'),
    action: form.getAttribute('action'),
    fields: Object.fromEntries(new FormData(form)),
  }));
}

const issue = (
  status: 'unresolved' | 'resolved' | 'ignored',
  extra: { triage?: TriageState; regressed?: boolean; count?: number; users?: number } = {},
) => ({
  id: 42,
  status,
  triage: extra.triage ?? ({ status } as TriageState),
  regressed: extra.regressed ?? false,
  count: extra.count ?? 5,
  users: extra.users ?? 1,
});

describe('IssueWorkflow', () => {
  it('offers an unresolved issue Resolve, Fixed in next release, Ignore with its mutes and Delete, each a POST of the issue and the action', () => {
    render(<IssueWorkflow issue={issue('unresolved')} />);
    expect(screen.getByText('Unresolved').className).toBe('badge-status status-unresolved');
    const base = { issueId: '42', from: 'issue' };
    expect(forms()).toEqual([
      {
        button: 'Resolve',
        method: 'post',
        action: '/_server/triage-issues',
        fields: { ...base, action: 'resolve' },
      },
      {
        button: 'Fixed in next release',
        method: 'post',
        action: '/_server/triage-issues',
        fields: { ...base, action: 'resolve-next-release' },
      },
      {
        button: 'Ignore',
        method: 'post',
        action: '/_server/triage-issues',
        fields: { ...base, action: 'ignore' },
      },
      // The confirmation is unticked: the browser refuses to send it so (`required`).
      {
        button: 'Delete',
        method: 'post',
        action: '/_server/triage-issues',
        fields: { ...base, action: 'delete' },
      },
    ]);
    const ignore = screen.getByRole('combobox', { name: 'Ignore' });
    expect(
      within(ignore)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual([
      'Forever',
      'For 30 minutes',
      'For 1 hour',
      'For 24 hours',
      'For 1 week',
      'Until 10 more events',
      'Until 100 more events',
      'Until 1000 more events',
      'Until 10 more users',
      'Until 100 more users',
    ]);
    expect(
      (
        screen.getByRole('checkbox', {
          name: 'Delete it and its events for good',
        }) as HTMLInputElement
      ).required,
    ).toBe(true);
  });

  it.each([
    ['resolved', ['Reopen:unresolve', 'Ignore:ignore', 'Delete:delete']],
    ['ignored', ['Reopen:unresolve', 'Resolve:resolve', 'Ignore:ignore', 'Delete:delete']],
  ] as const)('offers a %s issue %j', (status, offered) => {
    render(<IssueWorkflow issue={issue(status)} />);
    expect(forms().map((form) => `${form.button}:${form.fields.action}`)).toEqual(offered);
    expect(screen.getByText(status === 'resolved' ? 'Resolved' : 'Ignored').tagName).toBe('SPAN');
  });

  it('marks a regressed issue, and brings the reader back to the event on view', () => {
    render(
      <IssueWorkflow issue={issue('unresolved', { regressed: true })} eventId={'a'.repeat(32)} />,
    );
    // Two words, as a screen reader or a copy reads them.
    expect(screen.getByText('Regressed').parentElement?.textContent).toMatch(
      /Regressed Unresolved/,
    );
    expect(forms()[0]?.fields).toEqual({
      issueId: '42',
      from: 'issue',
      event: 'a'.repeat(32),
      action: 'resolve',
    });
  });

  it.each([
    [
      'a time mute',
      issue('ignored', { triage: { status: 'ignored', mute: { kind: 'time', target: NOW } } }),
      'Ignored until 2026-11-28 12:00:00 UTC',
    ],
    [
      'an events mute',
      issue('ignored', {
        count: 137,
        triage: { status: 'ignored', mute: { kind: 'events', target: 200, count: 100 } },
      }),
      'Ignored until 100 more events (37 so far)',
    ],
    [
      'a users mute',
      issue('ignored', {
        users: 4,
        triage: { status: 'ignored', mute: { kind: 'users', target: 12, count: 10 } },
      }),
      'Ignored until 10 more users (2 so far)',
    ],
    [
      'a resolve in the next release',
      issue('resolved', {
        triage: { status: 'resolved', inNextRelease: { after: '1.2.3', at: NOW } },
      }),
      'Resolved in next release (after 1.2.3)',
    ],
  ])('says what %s holds', (_, shown, text) => {
    render(<IssueWorkflow issue={shown} />);
    expect(screen.getByTestId('triage-note').textContent).toBe(text);
  });

  it('says nothing of a time mute that passed: the issue shows as unresolved', () => {
    render(
      <IssueWorkflow
        issue={issue('unresolved', {
          triage: { status: 'ignored', mute: { kind: 'time', target: NOW } },
        })}
      />,
    );
    expect(screen.queryByTestId('triage-note')).toBeNull();
    expect(screen.getByText('Unresolved').className).toBe('badge-status status-unresolved');
  });
});
