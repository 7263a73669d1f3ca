import { render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { IssueWorkflow } from '#app/components/inbox/InboxActions';

// The server function's address, as Start's compiler gives it to the page.
vi.mock('#app/server/inbox.functions', () => ({
  setIssueStatus: { url: '/_server/set-issue-status' },
}));

/** Each form as the browser would post it: its button, where to, and its fields. */
function forms() {
  return [...document.querySelectorAll('form')].map((form) => ({
    button: within(form).getByRole('button').textContent,
    method: form.getAttribute('method'),
    action: form.getAttribute('action'),
    fields: Object.fromEntries(new FormData(form)),
  }));
}

describe('IssueWorkflow', () => {
  it('offers an unresolved issue Resolve and Ignore, each a POST of the issue and the new status', () => {
    render(<IssueWorkflow issueId={42} status="unresolved" regressed={false} />);
    expect(screen.getByText('Unresolved')).toBeTruthy();
    expect(forms()).toEqual([
      {
        button: 'Resolve',
        method: 'post',
        action: '/_server/set-issue-status',
        fields: { issueId: '42', status: 'resolved' },
      },
      {
        button: 'Ignore',
        method: 'post',
        action: '/_server/set-issue-status',
        fields: { issueId: '42', status: 'ignored' },
      },
    ]);
  });

  it.each([
    ['resolved', ['Reopen:unresolved', 'Ignore:ignored']],
    ['ignored', ['Reopen:unresolved', 'Resolve:resolved']],
  ] as const)('offers a %s issue %j', (status, offered) => {
    render(<IssueWorkflow issueId={42} status={status} regressed={false} />);
    expect(forms().map((form) => `${form.button}:${form.fields.status}`)).toEqual(offered);
    expect(screen.getByText(status === 'resolved' ? 'Resolved' : 'Ignored')).toBeTruthy();
  });

  it('marks a regressed issue, and brings the reader back to the event on view', () => {
    render(<IssueWorkflow issueId={42} status="unresolved" regressed eventId={'a'.repeat(32)} />);
    // Two words, as a screen reader or a copy reads them.
    expect(screen.getByText('Regressed').parentElement?.textContent).toMatch(
      /Regressed Unresolved/,
    );
    expect(forms()[0]?.fields).toEqual({
      issueId: '42',
      status: 'resolved',
      event: 'a'.repeat(32),
    });
  });
});
