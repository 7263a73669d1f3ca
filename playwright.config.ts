import { defineConfig } from '@playwright/test';

// Debian's Chromium, never a downloaded browser. Each spec starts the production build itself
// (tests/support/built-server.ts) with the environment it needs.
export default defineConfig({
  testDir: 'tests/e2e',
  // Browser tests run against the production build: build it first when it is stale.
  globalSetup: './tests/support/build-once.ts',
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 60_000,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
    trace: 'off',
  },
});
