import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROUTES = join(import.meta.dirname, '../../app/routes');
// Kept on purpose: it reproduces the trap for the HTTP test that proves the server survives it.
const PROBE = 'sentry-example-page/missing-error-component.tsx';

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? routeFiles(join(dir, entry.name))
      : /\.tsx?$/.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );
}

/**
 * Start 1.120's code splitter turns `errorComponent: undefined` (and the other split
 * components) into a lazy component that never loads: SSR spins at full CPU and the browser
 * tab hangs. The server defends itself, the browser cannot: leave the option out instead.
 */
describe('route files', () => {
  const files = routeFiles(ROUTES).map((file) => relative(ROUTES, file));

  it.each(files.filter((file) => file !== PROBE))(
    '%s sets no component option to undefined',
    (file) => {
      const source = readFileSync(join(ROUTES, file), 'utf8');
      expect(source).not.toMatch(
        /(errorComponent|notFoundComponent|pendingComponent)\s*:\s*undefined/,
      );
    },
  );

  it('the check would catch the probe route', () => {
    expect(readFileSync(join(ROUTES, PROBE), 'utf8')).toMatch(/errorComponent\s*:\s*undefined/);
  });
});
