/**
 * The browser's monitoring config comes from the server at run time: the same build, restarted
 * with another SENTRY_DSN, reports to the new project without a rebuild.
 */
import { expect, type Page, test } from '@playwright/test';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { startFakeSentry } from '#tests/fixtures/fake-sentry';
import { startBuiltServer } from '#tests/support/built-server';
import { errorMessages } from '#tests/support/received-envelopes';
import { throwInPage, waitForSentryClient } from './support/page-sdk';

async function publicConfigOf(page: Page): Promise<Record<string, unknown>> {
  const text = await page.locator('script#site-config').textContent();
  return JSON.parse(text ?? 'null').monitoring;
}

/** The DSN the page's Sentry client was initialised with. */
function clientDsnOf(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const win = window as unknown as {
      __SENTRY__?: Record<string, { defaultCurrentScope?: { getClient(): unknown } }> & {
        version: string;
      };
    };
    const carrier = win.__SENTRY__?.[win.__SENTRY__.version];
    const client = carrier?.defaultCurrentScope?.getClient() as
      | { getOptions(): { dsn?: string } }
      | undefined;
    return client?.getOptions().dsn;
  });
}

test('a changed SENTRY_DSN takes effect on restart, without a rebuild', async ({ page }) => {
  const first = await startFakeSentry();
  const second = await startFakeSentry();
  try {
    let server = await startBuiltServer({ SENTRY_DSN: first.dsn('1') });
    await page.goto(`${server.url}/`);
    expect(await publicConfigOf(page)).toMatchObject({
      dsn: first.dsn('1'),
      tunnel: '/monitoring?o=0&p=1',
    });
    await server.stop();

    server = await startBuiltServer({ SENTRY_DSN: second.dsn('7', 'otherkey') });
    try {
      await page.goto(`${server.url}/`);
      expect(await publicConfigOf(page)).toMatchObject({
        dsn: second.dsn('7', 'otherkey'),
        tunnel: '/monitoring?o=0&p=7',
      });
      // The error loads the SDK (decision 0950), with the new DSN.
      await throwInPage(page, 'after the restart');
      await expect.poll(() => errorMessages(second.received)).toContain('after the restart');
      expect(await clientDsnOf(page)).toBe(second.dsn('7', 'otherkey'));
      expect(second.received.every((request) => request.url === '/api/7/envelope/')).toBe(true);
      // The first server's events went to the first ingest; nothing after the restart did.
      expect(errorMessages(first.received)).not.toContain('after the restart');
    } finally {
      await server.stop();
    }
  } finally {
    await first.close();
    await second.close();
  }
});

test('without SENTRY_DSN the browser reports to the local inbox DSN', async ({ page }) => {
  const server = await startBuiltServer({ SENTRY_RELEASE: 'v1</script><script>alert(1)' });
  try {
    const response = await page.goto(`${server.url}/`);
    const html = (await response?.text()) ?? '';
    // The release cannot close the script element: `<` is escaped in the document.
    expect(html).not.toContain('v1</script>');
    expect(await publicConfigOf(page)).toEqual({
      dsn: LOCAL_INBOX_DSN,
      tunnel: '/monitoring?o=0&p=1',
      environment: 'production',
      release: 'v1</script><script>alert(1)',
      tracesSampleRate: 1,
    });
    await waitForSentryClient(page);
    expect(await clientDsnOf(page)).toBe(LOCAL_INBOX_DSN);
  } finally {
    await server.stop();
  }
});
