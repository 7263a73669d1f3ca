/**
 * Server code keeps per-process state one way: through processShared (docs/decisions/0940).
 * A module-level `let` or mutable collection would be one per copy of the module in the build.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const APP = join(import.meta.dirname, '../../../app');

/** Lines that declare mutable state at module level, outside processShared. */
function moduleStateIn(source: string): string[] {
  return source.split('\n').filter(
    (line) =>
      /^(export )?(let|var) /.test(line) ||
      // A lower-case name marks a collection that changes; UPPER_CASE sets are constant tables.
      /^(export )?const [a-z]\w*(: [^=]+)? = new (Weak)?(Map|Set)\b/.test(line),
  );
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.tsx?$/.test(name))
    .map((name) => join(dir, name));
}

describe('moduleStateIn', () => {
  it.each([
    ['let cached: Config | undefined;', true],
    ['export let count = 0;', true],
    ['var legacy = 1;', true],
    ['const inFlight = new Map<number, Promise<void>>();', true],
    ['const seen = new WeakSet<object>();', true],
    ["const SAFE_METHODS = new Set(['GET', 'HEAD']);", false],
    ["const state = processShared('x', () => new Map());", false],
    ['  let local = 0;', false],
    ['const encoder = new TextEncoder();', false],
  ])('%s: %s', (line, found) => {
    expect(moduleStateIn(line)).toEqual(found ? [line] : []);
  });
});

describe('server code', () => {
  const files = [...sourcesUnder(join(APP, 'server')), join(APP, 'ssr.tsx')];

  it.each(files.map((file) => [relative(APP, file), file]))(
    '%s keeps no module-level state outside processShared',
    (_name, file) => {
      expect(moduleStateIn(readFileSync(file, 'utf8'))).toEqual([]);
    },
  );
});
