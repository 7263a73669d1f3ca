/**
 * An issue's events on its page: the list of its events, newest first, with how long ago and a
 * link to each; and the event shown with the tags Sentry derives, its handled flag and trace id.
 */
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { EventDetail, IssueEvents } from '#app/components/inbox/IssueEvents';
import type { ShownEvent } from '#app/server/inbox/inbox.functions';
import type { ListedEvent } from '#app/server/inbox/store/inbox-reads.server';
import { renderInRouter } from './in-router';

const NOW = Date.UTC(2026, 10, 26, 12, 30);
const id = (digit: string) => digit.repeat(32);

const listed = (digit: string, ago: number): ListedEvent => ({
  eventId: id(digit),
  receivedAt: NOW - ago,
  environment: 'production',
  release: 'app@1.4.0',
  url: 'http://localhost:3000/checkout',
});

const items = () =>
  within(screen.getByRole('list', { name: 'Events of this issue, newest first' })).getAllByRole(
    'listitem',
  );

describe('IssueEvents', () => {
  const page = {
    events: [listed('c', 5_000), listed('b', 3 * 60_000), listed('a', 2 * 86_400_000)],
    nextBefore: id('a'),
  };

  it('lists the events in the order given, each linking to it, with how long ago and the exact time', async () => {
    await renderInRouter(<IssueEvents issueId={7} page={page} now={NOW} shownEventId={id('b')} />);
    const links = items().map((item) => within(item).getByRole('link'));
    expect(links.map((link) => link.textContent)).toEqual([
      'just now cccccccc',
      '3 minutes ago bbbbbbbb',
      '2 days ago aaaaaaaa',
    ]);
    expect(links.map((link) => link.getAttribute('href'))).toEqual([
      `/errors/issues/7?event=${id('c')}`,
      `/errors/issues/7?event=${id('b')}`,
      `/errors/issues/7?event=${id('a')}`,
    ]);
    const time = links[1]?.querySelector('time');
    expect(time?.getAttribute('datetime')).toBe('2026-11-26T12:27:00.000Z');
    expect(time?.getAttribute('title')).toBe('2026-11-26 12:27:00 UTC');
    // The event on view is marked.
    expect(links.map((link) => link.getAttribute('aria-current'))).toEqual([null, 'page', null]);
    expect(items()[0]?.textContent).toContain('production · app@1.4.0');
  });

  it('links to the next page of older events, keeping the event on view; none on the last page', async () => {
    await renderInRouter(<IssueEvents issueId={7} page={page} now={NOW} shownEventId={id('b')} />);
    expect(screen.getByRole('link', { name: 'Older events →' }).getAttribute('href')).toBe(
      `/errors/issues/7?event=${id('b')}&before=${id('a')}`,
    );
    expect(screen.queryByRole('link', { name: 'Newest events' })).toBeNull();
  });

  it('on a later page, keeps its place when an event is opened and links back to the newest', async () => {
    await renderInRouter(
      <IssueEvents
        issueId={7}
        page={{ events: [listed('d', 60_000)] }}
        now={NOW}
        before={id('f')}
      />,
    );
    expect(screen.getByRole('heading', { name: 'Older events' })).toBeDefined();
    expect(
      within(items()[0] as HTMLElement)
        .getByRole('link')
        .getAttribute('href'),
    ).toBe(`/errors/issues/7?before=${id('f')}&event=${id('d')}`);
    expect(screen.getByRole('link', { name: 'Newest events' }).getAttribute('href')).toBe(
      '/errors/issues/7',
    );
    expect(screen.queryByRole('link', { name: 'Older events →' })).toBeNull();
  });
});

describe('EventDetail', () => {
  const shown = (overrides: Partial<ShownEvent> = {}): ShownEvent => ({
    eventId: id('e'),
    level: 'error',
    type: 'Error',
    message: 'boom',
    url: 'http://localhost:3000/sentry-example-page',
    environment: 'production',
    release: 'app@1.4.0',
    breadcrumbs: [],
    tags: [
      ['browser', 'Chrome 156'],
      ['os', 'Linux'],
      ['handled', 'no'],
      ['user', 'id:u-1'],
    ],
    stack: [],
    receivedAt: NOW,
    latest: true,
    ...overrides,
  });

  it('shows the event’s tags, its handled flag and its trace id', async () => {
    await renderInRouter(
      <EventDetail
        issueId={7}
        event={shown({ handled: false, traceId: '4bf92f3577b34da6a3ce929d0e0e4736' })}
      />,
    );
    const tags = document.querySelector('[aria-label="Tags of this event"]');
    expect([...(tags?.querySelectorAll('.tag') ?? [])].map((tag) => tag.textContent)).toEqual([
      'browserChrome 156',
      'osLinux',
      'handledno',
      'userid:u-1',
    ]);
    const facts = document.querySelector('dl.facts')?.textContent ?? '';
    expect(facts).toContain('Handledno (unhandled)');
    expect(facts).toContain('Trace id4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('says nothing of handling or a trace the event does not give', async () => {
    await renderInRouter(<EventDetail issueId={7} event={shown({ handled: true })} />);
    const facts = document.querySelector('dl.facts')?.textContent ?? '';
    expect(facts).toContain('Handledyes');
    expect(facts).not.toContain('Trace id');
  });
});
