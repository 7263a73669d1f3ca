// Builds the minimal Start app (bench/pages/minimal-start) with the repository's own
// node_modules: vinxi's CLI from the root, run with the app's folder as its working directory,
// so its .output and .vinxi stay in that folder (git-ignored there). Skipped when up to date.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildNeeded } from '../../scripts/build-state.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MINIMAL_ROOT = fileURLToPath(new URL('./minimal-start/', import.meta.url));
export const MINIMAL_ENTRY = join(MINIMAL_ROOT, '.output/server/index.mjs');
const VINXI_CLI = join(ROOT, 'node_modules/vinxi/bin/cli.mjs');

/** Files outside its folder that the minimal build depends on. */
const SHARED_INPUTS = [
  'package-lock.json',
  'app/server/health/event-loop.server.ts',
  'app/start-1.120/process-shared.server.ts',
  'app/styles/app.css',
  'public/favicon.svg',
];

function whyBuild() {
  const own = buildNeeded(MINIMAL_ROOT);
  if (own) return own;
  const built = statSync(MINIMAL_ENTRY).mtimeMs;
  const changed = SHARED_INPUTS.find((path) => {
    const full = join(ROOT, path);
    // A file moved away would otherwise pass for unchanged, and the minimal app's build fail later.
    if (!existsSync(full)) throw new Error(`${path}, which the minimal Start app imports, is gone`);
    return statSync(full).mtimeMs > built;
  });
  return changed ? `${changed} changed since the last build` : null;
}

export function ensureMinimalBuild() {
  const reason = whyBuild();
  if (!reason) return;
  console.log(`[build] minimal Start app: ${reason}: running vinxi build in ${MINIMAL_ROOT}`);
  const started = performance.now();
  const result = spawnSync(process.execPath, [VINXI_CLI, 'build'], {
    cwd: MINIMAL_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
    maxBuffer: 64 * 2 ** 20,
  });
  if (result.status !== 0) {
    console.error(`${result.stdout}\n${result.stderr}`);
    throw new Error(`vinxi build of the minimal app failed (${result.signal ?? result.status})`);
  }
  console.log(
    `[build] minimal Start app built in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
}
