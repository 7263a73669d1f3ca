/**
 * The Request section of an event on /errors: method and URL, route, a server function's
 * name and calling page, the headers, all as text.
 */
import { render, screen, within } from '@testing-library/react';
import { expect, it } from 'vitest';
import { RequestSection } from '#app/components/inbox/IssueEvents';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';

it('shows the method, URL, route, server function, calling page and headers', () => {
  render(
    <RequestSection
      request={{
        method: 'POST',
        url: 'http://a.test/_server/app--callFailingExample_createServerFn_handler',
        query: 'createServerFn',
        route: '/sentry-example-page',
        serverFunction: { name: 'callFailingExample', page: 'http://a.test/sentry-example-page' },
        headers: [['user-agent', HOSTILE]],
      }}
    />,
  );
  const region = screen.getByRole('region', { name: 'Request' });
  expect(within(region).getByText('POST').tagName).toBe('STRONG');
  const text = region.textContent ?? '';
  expect(text).toContain(
    'POST http://a.test/_server/app--callFailingExample_createServerFn_handler?createServerFn',
  );
  expect(text).toContain('Route/sentry-example-page');
  expect(text).toContain('Server functioncallFailingExample');
  expect(text).toContain('Called fromhttp://a.test/sentry-example-page');
  expect(text).toContain(`user-agent${HOSTILE}`);
  expect(document.querySelector('img')).toBeNull();
});

it('says so when a server function’s calling page is not known', () => {
  render(
    <RequestSection
      request={{ method: 'POST', serverFunction: { name: 'callFailingExample' }, headers: [] }}
    />,
  );
  expect(screen.getByRole('region', { name: 'Request' }).textContent).toContain(
    'Called fromnot known',
  );
});
