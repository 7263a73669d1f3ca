import { expect, type Locator, type Page } from '@playwright/test';

/**
 * Waits until React owns the element (its props are on it). A server-rendered button does
 * nothing when clicked before hydration, and the Sentry client exists before that (it starts
 * in the first script), so waiting for the client is not enough: a quick click races hydration.
 */
export async function waitUntilReactOwns(element: Locator): Promise<void> {
  await expect
    .poll(() =>
      element.evaluate((node) => Object.keys(node).some((key) => key.startsWith('__reactProps'))),
    )
    .toBe(true);
}

/**
 * Hydrated: React has taken over the document (hydrateRoot marks its container) and the page's
 * scripts have stopped loading.
 */
export async function waitForHydration(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    Object.keys(document).some((key) => key.startsWith('__reactContainer$')),
  );
  await page.waitForLoadState('networkidle');
}
