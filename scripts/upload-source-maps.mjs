// @ts-check
/**
 * `npm run sourcemaps:upload`: one `sentry sourcemap upload` (the Sentry CLI that package.json
 * pins) of the build's client chunks with their hidden maps. Run it after `npm run build`, from
 * the project root, with SENTRY_AUTH_TOKEN, SENTRY_ORG, SENTRY_PROJECT and optionally
 * SENTRY_URL and SENTRY_RELEASE. Why each step: docs/decisions/0702-source-map-upload-after-the-build.md.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// Where the build puts the served chunks and where it moves their maps (build/move-source-maps.ts).
const CHUNKS_DIR = '.output/public/_build/assets';
const MAPS_DIR = '.output/sourcemaps/client/_build/assets';
const CLI = resolve(import.meta.dirname, '../node_modules/.bin/sentry');
/** @type {ReadonlyArray<readonly [string, string]>} */
const REQUIRED = [
  ['SENTRY_AUTH_TOKEN', 'an organization auth token (Settings > Auth Tokens in Sentry)'],
  ['SENTRY_ORG', "the organization's slug"],
  ['SENTRY_PROJECT', "the project's slug"],
];

/** A variable's value, trimmed; '' when unset or blank. @param {string} name */
const variable = (name) => process.env[name]?.trim() ?? '';

// First, before anything is read or written: every missing variable, one line each.
const problems = REQUIRED.filter(([name]) => !variable(name)).map(
  ([name, what]) => `${name} is not set: ${what}`,
);
const url = variable('SENTRY_URL');
if (url && !(URL.canParse(url) && /^https?:$/.test(new URL(url).protocol))) {
  problems.push(
    'SENTRY_URL is not an http(s) URL: your self-hosted Sentry, e.g. https://sentry.example.com/',
  );
}
if (problems.length > 0) {
  for (const problem of problems) console.error(`[sourcemaps] ${problem}`);
  process.exit(1);
}

// A chunk without the build's debug ID is left out: the CLI would give only the uploaded copy
// one, which no event names.
const chunks = existsSync(CHUNKS_DIR)
  ? readdirSync(CHUNKS_DIR)
      .filter((name) => name.endsWith('.js'))
      .sort()
  : [];
const paired = chunks.filter(
  (chunk) =>
    existsSync(join(MAPS_DIR, `${chunk}.map`)) &&
    /\/\/# debugId=[0-9a-fA-F-]{36}\s*$/.test(readFileSync(join(CHUNKS_DIR, chunk), 'utf8')),
);
if (paired.length === 0) {
  console.error(
    `[sourcemaps] no client chunks with debug IDs and source maps in ${CHUNKS_DIR} and ${MAPS_DIR}: run \`npm run build\` first`,
  );
  process.exit(1);
}
for (const chunk of chunks.filter((name) => !paired.includes(name))) {
  console.warn(`[sourcemaps] ${chunk} has no map or no debug ID: not uploaded`);
}

// The CLI reads its configuration from SENTRY_* variables and ~/.sentry: it gets the caller's
// environment without any SENTRY_* (a stray SENTRY_HOST would win over SENTRY_URL), exactly
// ours, and a config directory of its own, so nothing stored decides where the maps go.
const work = mkdtempSync(join(tmpdir(), 'sourcemaps-upload-'));
const env = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('SENTRY_')),
  ),
  SENTRY_AUTH_TOKEN: variable('SENTRY_AUTH_TOKEN'),
  SENTRY_ORG: variable('SENTRY_ORG'),
  SENTRY_PROJECT: variable('SENTRY_PROJECT'),
  ...(url ? { SENTRY_URL: url } : {}),
  SENTRY_FORCE_ENV_TOKEN: '1',
  SENTRY_CONFIG_DIR: join(work, 'config'),
  SENTRY_CLI_NO_TELEMETRY: '1',
  SENTRY_CLI_NO_UPDATE_CHECK: '1',
};
const release = variable('SENTRY_RELEASE');
// No --no-rewrite: with it CLI 0.45 leaves the debug IDs out of the bundle's manifest.
const files = join(work, 'files');
const args = ['sourcemap', 'upload', files, '--url-prefix', '~/_build/assets/'];
if (release) args.push('--release', release);
let status = 1;
try {
  // The CLI pairs a chunk with the map beside it, and the build keeps the maps apart: each pair
  // is copied into one directory, uploaded under the path it is served at.
  mkdirSync(files);
  for (const chunk of paired) {
    copyFileSync(join(CHUNKS_DIR, chunk), join(files, chunk));
    copyFileSync(join(MAPS_DIR, `${chunk}.map`), join(files, `${chunk}.map`));
  }
  console.log(
    `[sourcemaps] uploading ${paired.length} client chunks and their maps to ${env.SENTRY_ORG}/${env.SENTRY_PROJECT} at ${url || 'sentry.io'}${release ? `, release ${release}` : ''}`,
  );
  status = spawnSync(process.execPath, [CLI, ...args], { env, stdio: 'inherit' }).status ?? 1;
  if (status !== 0) console.error(`[sourcemaps] the Sentry CLI failed (exit ${status})`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(status);
