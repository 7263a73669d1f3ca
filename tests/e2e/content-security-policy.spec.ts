/**
 * The pages under their Content-Security-Policy in Chromium: hydration, navigation, a server
 * function and an error report all work with no violation; a script injected without the
 * response's nonce is blocked, and the violation reaches Sentry through the tunnel.
 */

import { expect, test } from '@playwright/test';
import { errorMessages, parseEnvelope } from '#tests/support/received-envelopes';
import { appWithFakeSentry } from './support/app-with-fake-sentry';
import { waitForHydration } from './support/hydration';
import { expectInjectedScriptBlocked, recordViolations } from './support/page-errors';
import { throwInPage } from './support/page-sdk';

const app = appWithFakeSentry((fake) => ({
  SENTRY_DSN: fake.dsn(),
  ENABLE_EXAMPLE_ROUTES: 'true',
  SENTRY_TRACES_SAMPLE_RATE: '0',
}));

/** The messages of message events (captureMessage) the ingest received. */
function messageEvents(): string[] {
  return app.ingest.received.flatMap((request) =>
    parseEnvelope(request.body)
      .items.filter((item) => item.header.type === 'event')
      .map((item) => (item.payload as { message?: string }).message ?? '')
      .filter(Boolean),
  );
}

test('pages hydrate, navigate, call the server and report errors with no violation', async ({
  page,
}) => {
  const violations = await recordViolations(page);
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content.Security.Policy/i.test(message.text())) {
      consoleErrors.push(message.text());
    }
  });

  await page.goto(`${app.server.url}/`);
  await waitForHydration(page);
  await page.getByRole('link', { name: 'How errors are handled' }).click();
  await expect(page).toHaveURL(`${app.server.url}/about`);
  await page.goto(`${app.server.url}/sentry-example-page`);
  await waitForHydration(page);
  await page.getByRole('button', { name: 'Call failing server function' }).click();
  await expect(page.getByRole('status')).toHaveText(/^The server function failed, digest /);

  // The tunnel is the one way out that connect-src leaves: the report arrives, and the SDK,
  // which this page view loads for it (decision 0950), loads under the policy too.
  await throwInPage(page, 'reported under the policy');
  await expect
    .poll(() => errorMessages(app.ingest.received))
    .toContain('reported under the policy');

  expect(await violations()).toEqual([]);
  expect(consoleErrors).toEqual([]);
  expect(
    messageEvents().filter((message) => message.startsWith('Content-Security-Policy')),
  ).toEqual([]);
});

test('a script injected without the nonce is blocked, and the violation is reported', async ({
  page,
}) => {
  const violations = await recordViolations(page);
  await page.goto(`${app.server.url}/about`);
  await waitForHydration(page);

  await expectInjectedScriptBlocked(page, violations);
  await expect
    .poll(messageEvents)
    .toContain('Content-Security-Policy: script-src-elem blocked inline');
});
