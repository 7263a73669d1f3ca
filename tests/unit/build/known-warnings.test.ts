import { describe, expect, it } from 'vitest';
import { type BuildWarning, quietKnownWarnings } from '../../../build/known-warnings';

const CREATE_SERVER_FN =
  '/repo/node_modules/@tanstack/start-client-core/dist/esm/createServerFn.js';
const externalised = (module: string, importer: string): BuildWarning => ({
  plugin: 'vite:resolve',
  message: `[plugin vite:resolve] Module "${module}" has been externalized for browser compatibility, imported by "${importer}". See https://vite.dev/guide/troubleshooting.html for more details.`,
});

describe('quietKnownWarnings', () => {
  it.each<[string, BuildWarning, boolean]>([
    [
      "Start's server-only node:fs in the browser build",
      externalised('node:fs', CREATE_SERVER_FN),
      false,
    ],
    [
      "Start's server-only node:path in the browser build",
      externalised('node:path', CREATE_SERVER_FN),
      false,
    ],
    [
      'node:fs imported by our own code',
      externalised('node:fs', '/repo/app/monitoring/triage.ts'),
      true,
    ],
    ['node:crypto imported by Start', externalised('node:crypto', CREATE_SERVER_FN), true],
    [
      "vinxi's default import of the browser entry",
      {
        code: 'MISSING_EXPORT',
        binding: 'default',
        exporter: '/repo/app/client.tsx',
        id: '\0virtual:$vinxi/handler/client',
        message: '"default" is not exported by "app/client.tsx"',
      },
      false,
    ],
    [
      'a missing export of another module',
      {
        code: 'MISSING_EXPORT',
        binding: 'default',
        exporter: '/repo/app/router.tsx',
        id: '/repo/app/client.tsx',
        message: '"default" is not exported by "app/router.tsx"',
      },
      true,
    ],
    [
      "react-start-client's unused re-exports",
      {
        code: 'UNUSED_EXTERNAL_IMPORT',
        exporter: '@tanstack/start-client-core',
        ids: ['/repo/node_modules/@tanstack/react-start-client/dist/esm/index.js'],
        message: '"json" is imported from external module but never used',
      },
      false,
    ],
    [
      'an unused external import in our code',
      {
        code: 'UNUSED_EXTERNAL_IMPORT',
        exporter: '@tanstack/start-client-core',
        ids: ['/repo/app/server/triage.ts'],
        message: '"json" is imported from external module but never used',
      },
      true,
    ],
    ['an empty chunk', { code: 'EMPTY_BUNDLE', message: 'Generated an empty chunk: "x"' }, true],
  ])('%s: shown = %s', (_name, warning, shown) => {
    const seen: BuildWarning[] = [];
    quietKnownWarnings(warning, (w) => seen.push(w));
    expect(seen).toEqual(shown ? [warning] : []);
  });
});
