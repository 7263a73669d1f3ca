// @ts-check
/**
 * What `npm run sourcemaps:upload` checks and runs, as pure functions of the environment so
 * that tests/unit/scripts/source-map-upload.test.ts can hold every case. The glue that reads
 * the build and starts the CLI is scripts/upload-source-maps.mjs.
 * Decision: docs/decisions/0702-source-map-upload-after-the-build.md.
 */

/**
 * The variables an upload cannot do without, and what each one is.
 * @type {ReadonlyArray<readonly [string, string]>}
 */
export const REQUIRED_VARIABLES = [
  ['SENTRY_AUTH_TOKEN', 'an organization auth token (Settings > Auth Tokens in Sentry)'],
  ['SENTRY_ORG', "the organization's slug"],
  ['SENTRY_PROJECT', "the project's slug"],
];

/**
 * One line per variable that is missing (unset or blank) or unusable, in a fixed order; empty
 * when the upload may start.
 * @param {Record<string, string | undefined>} env
 * @returns {string[]}
 */
export function environmentProblems(env) {
  const problems = REQUIRED_VARIABLES.filter(([name]) => !present(env[name])).map(
    ([name, what]) => `${name} is not set: ${what}`,
  );
  const url = env.SENTRY_URL;
  if (present(url) && !isHttpUrl(url.trim())) {
    problems.push(
      `SENTRY_URL is not an http(s) URL: your self-hosted Sentry, e.g. https://sentry.example.com/`,
    );
  }
  return problems;
}

/**
 * The CLI's arguments and its whole environment for uploading `directory`.
 *
 * - No `--no-rewrite`: with it this CLI (0.45) drops the debug IDs from the bundle's manifest,
 *   and Sentry could match nothing. Without it the CLI reads the IDs the build injected and,
 *   since every chunk has one, changes no file (it would only ever change the copies).
 * - The environment is the caller's minus every `SENTRY_*` variable, plus exactly ours: a
 *   stray SENTRY_HOST would win over SENTRY_URL, SENTRY_DSN would be scanned for a project.
 * - `SENTRY_CONFIG_DIR` is a fresh directory: a login or defaults stored in ~/.sentry, or a
 *   cached API answer, never decides where the maps go; `SENTRY_FORCE_ENV_TOKEN` for the same
 *   reason. No telemetry and no update check: the CLI talks only to SENTRY_URL (or sentry.io).
 *
 * @param {Record<string, string | undefined>} env
 * @param {{ directory: string, configDir: string }} where
 * @returns {{ args: string[], env: Record<string, string> }}
 */
export function uploadCommand(env, { directory, configDir }) {
  const release = env.SENTRY_RELEASE?.trim();
  const args = ['sourcemap', 'upload', directory];
  if (release) args.push('--release', release);

  /** @type {Record<string, string>} */
  const childEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('SENTRY_') && value !== undefined) childEnv[name] = value;
  }
  Object.assign(childEnv, {
    SENTRY_AUTH_TOKEN: (env.SENTRY_AUTH_TOKEN ?? '').trim(),
    SENTRY_ORG: (env.SENTRY_ORG ?? '').trim(),
    SENTRY_PROJECT: (env.SENTRY_PROJECT ?? '').trim(),
    SENTRY_FORCE_ENV_TOKEN: '1',
    SENTRY_CONFIG_DIR: configDir,
    SENTRY_CLI_NO_TELEMETRY: '1',
    SENTRY_CLI_NO_UPDATE_CHECK: '1',
  });
  const url = env.SENTRY_URL?.trim();
  if (url) childEnv.SENTRY_URL = url;
  return { args, env: childEnv };
}

/**
 * The debug ID the build put into a chunk (`//# debugId=…` at its end), if any. A chunk without
 * one is not uploaded: the CLI would give only the uploaded copy an ID, which no event names.
 * @param {string} code
 */
export function debugIdOf(code) {
  return /\/\/# debugId=([0-9a-fA-F-]{36})\s*$/.exec(code)?.[1];
}

/** @param {string | undefined} value @returns {value is string} */
function present(value) {
  return typeof value === 'string' && value.trim() !== '';
}

/** @param {string} value */
function isHttpUrl(value) {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
