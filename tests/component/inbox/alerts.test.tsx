import { render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { AlertChannels, AlertHistory } from '#app/components/inbox/Alerts';

// The server function's address, as Start's compiler gives it to the page.
vi.mock('#app/server/inbox/inbox.functions', () => ({
  sendTestAlert: { url: '/_server/send-test-alert' },
}));

const AT = Date.UTC(2026, 10, 28, 4, 0);

describe('AlertChannels', () => {
  it('lists each channel with its latest attempt, and posts a test alert', () => {
    render(
      <AlertChannels
        channels={[
          { name: 'webhook hooks.slack.com', latest: { at: AT, sent: true, reason: null } },
          {
            name: 'webhook discord.com',
            latest: { at: AT, sent: false, reason: 'answered 503' },
          },
          { name: 'webhook chat.example' },
        ]}
      />,
    );
    const section = screen.getByRole('region', { name: 'Alerts' });
    expect(
      within(section)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      'webhook hooks.slack.com: last alert sent 2026-11-28 04:00:00 UTC',
      'webhook discord.com: last attempt failed 2026-11-28 04:00:00 UTC (answered 503)',
      'webhook chat.example: nothing sent yet',
    ]);
    const form = screen.getByRole('form', { name: 'Send a test alert' });
    expect(form.getAttribute('method')).toBe('post');
    expect(form.getAttribute('action')).toBe('/_server/send-test-alert');
    expect(Object.fromEntries(new FormData(form as HTMLFormElement))).toEqual({ send: 'test' });
    expect(within(form).getByRole('button').textContent).toBe('Send a test alert');
  });

  it('shows nothing without a channel', () => {
    const { container } = render(<AlertChannels channels={[]} />);
    expect(container.innerHTML).toBe('');
  });
});

describe('AlertHistory', () => {
  it('says per channel whether each alert was sent, is pending or failed, and why', () => {
    render(
      <AlertHistory
        alerts={[
          {
            kind: 'regressed',
            raisedAt: AT,
            channel: 'webhook a.example',
            state: 'pending',
            attempts: 2,
            reason: 'answered 503',
          },
          {
            kind: 'new',
            raisedAt: AT - 60_000,
            channel: 'webhook a.example',
            state: 'sent',
            attempts: 3,
            reason: null,
          },
          {
            kind: 'new',
            raisedAt: AT - 60_000,
            channel: 'webhook b.example',
            state: 'failed',
            attempts: 1,
            reason: 'answered 404',
          },
        ]}
      />,
    );
    const section = screen.getByRole('region', { name: 'Alerts' });
    expect(
      within(section)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      '2026-11-28 04:00:00 UTC Regressed to webhook a.example: pending, retrying: answered 503 (2 attempts so far)',
      '2026-11-28 03:59:00 UTC New issue to webhook a.example: sent (after 3 attempts)',
      '2026-11-28 03:59:00 UTC New issue to webhook b.example: failed: answered 404 (1 attempt)',
    ]);
  });

  it('says when no alert was raised', () => {
    render(<AlertHistory alerts={[]} />);
    expect(screen.getByText('No alert was raised for this issue.').tagName).toBe('P');
  });
});
