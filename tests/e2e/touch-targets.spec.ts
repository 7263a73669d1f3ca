/**
 * The example page on a phone: every button is at least 44 px tall (WCAG 2.5.5) and none
 * touches another, so a thumb presses the one it means.
 */
import { expect, test } from '@playwright/test';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';

const MIN_TARGET_PX = 44;
const MIN_GAP_PX = 8;

let server: BuiltServer;

test.beforeAll(async () => {
  server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: '1' });
});
test.afterAll(async () => {
  await server?.stop();
});

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

test('the example page buttons are 44 px tall and apart on a phone', async ({ page }) => {
  await page.goto(`${server.url}/sentry-example-page`);
  const buttons = page.getByRole('main').getByRole('button');
  await expect(buttons).toHaveCount(3);
  const boxes = [];
  for (const button of await buttons.all()) {
    const box = await button.boundingBox();
    if (!box) throw new Error('a button is not laid out');
    expect(box.height).toBeGreaterThanOrEqual(MIN_TARGET_PX);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    boxes.push(box);
  }
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) {
      // Apart on at least one axis: a gap to the side or a gap above.
      const apartX = Math.max(b.x - (a.x + a.width), a.x - (b.x + b.width));
      const apartY = Math.max(b.y - (a.y + a.height), a.y - (b.y + b.height));
      expect(Math.max(apartX, apartY)).toBeGreaterThanOrEqual(MIN_GAP_PX);
    }
  }
});
