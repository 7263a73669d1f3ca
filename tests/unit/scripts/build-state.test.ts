import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildNeeded, sourceHashes, writeBuildStamp } from '../../../scripts/build-state.mjs';

/** A project with sources and a build stamped from them. */
function builtProject(): string {
  const root = mkdtempSync(join(tmpdir(), 'build-state-'));
  mkdirSync(join(root, 'app/routes'), { recursive: true });
  writeFileSync(join(root, 'app/routes/index.tsx'), 'export const a = 1;\n');
  writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}\n');
  mkdirSync(join(root, '.output/server'), { recursive: true });
  writeFileSync(join(root, '.output/server/index.mjs'), '');
  writeBuildStamp(sourceHashes(root), root);
  return root;
}

describe('buildNeeded', () => {
  it('asks for no build when nothing changed', () => {
    expect(buildNeeded(builtProject())).toBeNull();
  });

  it('asks for no build when a file is rewritten with the same bytes (npm install)', () => {
    const root = builtProject();
    writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}\n');
    expect(buildNeeded(root)).toBeNull();
  });

  it.each([
    ['a changed file', 'app/routes/index.tsx', 'export const a = 2;\n', 'app'],
    ['a new file', 'app/routes/about.tsx', 'export {};\n', 'app'],
    ['a changed lockfile', 'package-lock.json', '{"lockfileVersion":4}\n', 'package-lock.json'],
    ['a new config file', 'tsconfig.json', '{}\n', 'tsconfig.json'],
  ])('names the source after %s', (_name, path, text, source) => {
    const root = builtProject();
    writeFileSync(join(root, path), text);
    expect(buildNeeded(root)).toBe(`${source} changed since the last build`);
  });

  it('ignores the route tree, which the build itself writes', () => {
    const root = builtProject();
    writeFileSync(join(root, 'app/routeTree.gen.ts'), '// generated\n');
    expect(buildNeeded(root)).toBeNull();
  });

  it('asks for a build when there is none, or when it carries no stamp', () => {
    expect(buildNeeded(mkdtempSync(join(tmpdir(), 'build-state-')))).toBe(
      'no production build yet',
    );
    const root = builtProject();
    writeFileSync(join(root, '.output/build-stamp.json'), 'not json');
    expect(buildNeeded(root)).toMatch(/does not say what it was built from/);
  });
});
