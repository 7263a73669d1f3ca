import { defineConfig } from 'vitest/config';
import { importAliases } from './build/import-aliases';

// vitest does not read app.config.ts; each kind of test gets its own project here.
export default defineConfig({
  resolve: { alias: importAliases },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        extends: true,
        esbuild: { jsx: 'automatic' },
        test: {
          name: 'component',
          include: ['tests/component/**/*.test.tsx'],
          environment: 'jsdom',
          setupFiles: ['tests/support/component-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'http',
          include: ['tests/http/**/*.test.ts'],
          environment: 'node',
          // The HTTP tests run against the production build: build it once, first.
          globalSetup: ['tests/support/build-once.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
