// Builds the production bundle when it is missing or its sources changed (content hashes,
// ./build-state.mjs).
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { buildNeeded } from './build-state.mjs';

export function ensureBuild() {
  const reason = buildNeeded();
  if (!reason) return;
  console.log(`[build] ${reason}: running vinxi build`);
  const result = spawnSync('npx', ['vinxi', 'build'], { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('[build] vinxi build failed');
    process.exit(result.status ?? 1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) ensureBuild();
