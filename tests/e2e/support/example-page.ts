import type { Page, Response } from '@playwright/test';
import { waitUntilReactOwns } from './hydration';
import { waitForSentryClient } from './page-sdk';

/**
 * Opens /sentry-example-page, presses "Throw client error" once React owns the button, and
 * returns the tunnel's answer to the envelope that carried the event (the SDK also sends
 * sessions and page-load traces: those are not waited for).
 */
export async function throwClientErrorOnExamplePage(
  page: Page,
  baseUrl: string,
): Promise<Response> {
  await page.goto(`${baseUrl}/sentry-example-page`);
  await waitForSentryClient(page);
  const eventStored = page.waitForResponse(
    (response) =>
      new URL(response.url()).pathname === '/monitoring' &&
      (response.request().postData() ?? '').includes('"type":"event"'),
  );
  const button = page.getByRole('button', { name: 'Throw client error' });
  await waitUntilReactOwns(button);
  await button.click();
  return eventStored;
}
