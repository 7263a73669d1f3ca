/**
 * Triage in a real browser against the production build (issue 34): the list's bulk actions
 * (select all on the page, then all matching a search) and a mute from an issue's page, with
 * what the pages then say, and the new controls clean under axe.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { seededEvent, seedInbox } from '#tests/support/seed-inbox';
import { waitForHydration, waitUntilReactOwns } from './support/hydration';
import { collectPageErrors } from './support/page-errors';

/** Four issues: three errors and a warning. */
function seeds() {
  const now = Date.now();
  return ['First', 'Second', 'Third', 'Warned'].map((name, n) =>
    seededEvent({
      type: 'Error',
      message: `${name} failure`,
      level: name === 'Warned' ? 'warning' : 'error',
      at: now - (4 - n) * 60_000,
    }),
  );
}

let server: BuiltServer;
test.beforeEach(async () => {
  server = await startBuiltServer({ MONITORING_INBOX_DIR: seedInbox(seeds()) });
});
test.afterEach(async () => {
  await server?.stop();
});

const issues = (page: Page) => page.getByRole('list', { name: 'Issues' }).getByRole('listitem');
const bulk = (page: Page) => page.getByRole('form', { name: 'Act on issues' });

/** Serious or critical axe findings on the page, as "rule: target". */
async function axeFindings(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target}`));
}

test('selects all on the page and resolves them, then deletes all that match a search', async ({
  page,
}) => {
  const errors = collectPageErrors(page);
  await page.goto(`${server.url}/errors`);
  await waitForHydration(page);
  await expect(issues(page)).toHaveCount(4);
  expect(await axeFindings(page)).toEqual([]);

  const selectAll = page.getByRole('checkbox', { name: 'Select all on this page' });
  await waitUntilReactOwns(selectAll);
  await selectAll.check();
  for (const name of ['First', 'Second', 'Third', 'Warned']) {
    await expect(
      page.getByRole('checkbox', { name: `Select Error: ${name} failure` }),
    ).toBeChecked();
  }
  // One left out.
  await page.getByRole('checkbox', { name: 'Select Error: Warned failure' }).uncheck();
  await bulk(page).getByRole('combobox', { name: 'Action' }).selectOption('Resolve');
  await bulk(page).getByRole('button', { name: 'Change issues' }).click();
  await expect(page.getByTestId('triage-done')).toHaveText('3 issues resolved.');
  await expect(issues(page).getByText('Resolved', { exact: true })).toHaveCount(3);

  // All that match `is:resolved`: searched, then deleted with the confirmation.
  await page.getByRole('searchbox', { name: 'Search' }).fill('is:resolved');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(issues(page)).toHaveCount(3);
  await bulk(page).getByRole('radio', { name: 'All 3 issues that match, on every page' }).check();
  await bulk(page).getByRole('combobox', { name: 'Action' }).selectOption('Delete');
  await bulk(page)
    .getByRole('checkbox', { name: /Confirm a delete/ })
    .check();
  await bulk(page).getByRole('button', { name: 'Change issues' }).click();
  await expect(page.getByTestId('triage-done')).toHaveText('3 issues deleted.');
  await page.goto(`${server.url}/errors`);
  await expect(issues(page)).toHaveCount(1);
  await expect(issues(page).first()).toContainText('Warned failure');
  expect(errors).toEqual([]);
});

test('mutes an issue until 10 more events from its page: it says so, and the list hides it', async ({
  page,
}) => {
  const errors = collectPageErrors(page);
  await page.goto(`${server.url}/errors/issues/1`);
  await waitForHydration(page);
  expect(await axeFindings(page)).toEqual([]);
  await page.getByRole('combobox', { name: 'Ignore' }).selectOption('Until 10 more events');
  await page.getByRole('button', { name: 'Ignore', exact: true }).click();
  await expect(page).toHaveURL(`${server.url}/errors/issues/1`);
  await expect(page.locator('.issue-workflow')).toContainText('Status: Ignored');
  await expect(page.getByTestId('triage-note')).toHaveText(
    'Ignored until 10 more events (0 so far)',
  );

  await page.goto(`${server.url}/errors`);
  await expect(issues(page)).toHaveCount(3);
  await expect(page.getByText('1 ignored issue hidden.')).toBeVisible();
  await page.getByRole('link', { name: 'Show ignored issues' }).click();
  await expect(issues(page).first()).toContainText('Ignored until 10 more events (0 so far)');
  expect(errors).toEqual([]);
});
