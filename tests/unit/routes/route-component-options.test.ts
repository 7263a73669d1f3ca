import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROUTES = join(import.meta.dirname, '../../../app/routes');
const UNDEFINED_COMPONENT = /(errorComponent|notFoundComponent|pendingComponent)\s*:\s*undefined/;

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
 * components) into a lazy component whose chunk exports nothing: rendering it throws a fresh
 * promise on every try, so SSR spins at full CPU and the browser tab hangs. Leave the option
 * out instead; this check keeps it out (docs/decisions/0202).
 */
describe('route files', () => {
  const files = routeFiles(ROUTES).map((file) => relative(ROUTES, file));

  it.each(files)('%s sets no component option to undefined', (file) => {
    expect(readFileSync(join(ROUTES, file), 'utf8')).not.toMatch(UNDEFINED_COMPONENT);
  });

  it.each([
    ['errorComponent: undefined,', true],
    ['  notFoundComponent :undefined', true],
    ['pendingComponent: undefined', true],
    ['errorComponent: ErrorFallback,', false],
    ['// errorComponent is left out: the default applies', false],
  ])('the check finds %j: %s', (source, found) => {
    expect(UNDEFINED_COMPONENT.test(source)).toBe(found);
  });
});
