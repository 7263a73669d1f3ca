// @ts-check
/**
 * `npm run sourcemaps:upload`: sends the build's hidden client maps, with the chunks they
 * belong to, to Sentry as one artifact bundle, using the Sentry CLI that package.json pins.
 * Run it after `npm run build`, from the project root, with SENTRY_AUTH_TOKEN, SENTRY_ORG,
 * SENTRY_PROJECT and optionally SENTRY_URL and SENTRY_RELEASE. Why the steps are what they
 * are: docs/decisions/0702-source-map-upload-after-the-build.md.
 */
import { spawn } from 'node:child_process';
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
import { debugIdOf, environmentProblems, uploadCommand } from './source-map-upload.mjs';

// Where the build puts the served chunks and where it moves their maps (build/move-source-maps.ts).
const CHUNKS_DIR = '.output/public/_build/assets';
const MAPS_DIR = '.output/sourcemaps/client/_build/assets';
const CLI = resolve(import.meta.dirname, '../node_modules/.bin/sentry');

// First, before anything is read or written: every missing variable, one line each.
const problems = environmentProblems(process.env);
if (problems.length > 0) {
  for (const problem of problems) console.error(`[sourcemaps] ${problem}`);
  process.exit(1);
}

const chunksDir = resolve(CHUNKS_DIR);
const mapsDir = resolve(MAPS_DIR);
const chunks = existsSync(chunksDir) ? jsFilesIn(chunksDir) : [];
const maps = new Set(existsSync(mapsDir) ? readdirSync(mapsDir) : []);
const paired = chunks.filter(
  (chunk) =>
    maps.has(`${chunk}.map`) &&
    debugIdOf(readFileSync(join(chunksDir, chunk), 'utf8')) !== undefined,
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

// The CLI pairs a chunk with the map beside it, so both go into one directory, under the
// same `_build/assets/` path they are served at (the bundle's URLs become `~/_build/assets/…`).
const work = mkdtempSync(join(tmpdir(), 'sourcemaps-upload-'));
let status = 1;
try {
  const directory = join(work, 'client');
  const assets = join(directory, '_build/assets');
  mkdirSync(assets, { recursive: true });
  for (const chunk of paired) {
    copyFileSync(join(chunksDir, chunk), join(assets, chunk));
    copyFileSync(join(mapsDir, `${chunk}.map`), join(assets, `${chunk}.map`));
  }
  const command = uploadCommand(process.env, { directory, configDir: join(work, 'config') });
  const release = process.env.SENTRY_RELEASE?.trim();
  console.log(
    `[sourcemaps] uploading ${paired.length} client chunks and their maps to ${command.env.SENTRY_ORG}/${command.env.SENTRY_PROJECT}` +
      ` at ${command.env.SENTRY_URL ?? 'sentry.io'}${release ? `, release ${release}` : ''}`,
  );
  status = await run(process.execPath, [CLI, ...command.args], command.env);
  if (status !== 0) console.error(`[sourcemaps] the Sentry CLI failed (exit ${status})`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(status);

/** @param {string} dir */
function jsFilesIn(dir) {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.js'))
    .sort();
}

/**
 * @param {string} file
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @returns {Promise<number>}
 */
function run(file, args, env) {
  return new Promise((done) => {
    const child = spawn(file, args, { env, stdio: 'inherit' });
    child.on('error', (error) => {
      console.error(`[sourcemaps] could not start the Sentry CLI: ${error.message}`);
      done(1);
    });
    child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}
