/**
 * `npm run sourcemaps:upload` end to end: the real script runs the pinned Sentry CLI against a
 * fake of Sentry's web API on 127.0.0.1 (SENTRY_URL), which records what arrives. The bundle
 * it assembles must hold every client chunk and its map byte for byte, under the debug IDs the
 * build gave them, and the CLI must connect to nothing else. Without its variables or without
 * a build, the script stops before anything is sent.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSentryApi, startFakeSentryApi } from '#tests/fixtures/fake-sentry-api';
import { readArtifactBundle } from '#tests/support/artifact-bundle';
import { CLIENT_MAPS_DIR, clientChunks, debugIdsOf } from '#tests/support/client-build';

const ROOT = resolve(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'scripts/upload-source-maps.mjs');
const RECORDER = join(ROOT, 'tests/fixtures/record-connections.cjs');
const TOKEN = 'sntrys_test-token-1f2e';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the upload script with only PATH and the given variables, in `cwd`. */
function upload(env: Record<string, string>, cwd = ROOT): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [SCRIPT], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => {
      stdout += data.toString();
    });
    child.stderr.on('data', (data: Buffer) => {
      stderr += data.toString();
    });
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

let api: FakeSentryApi;
beforeAll(async () => {
  api = await startFakeSentryApi('acme');
});
afterAll(async () => {
  await api?.close();
});

describe('sourcemaps:upload against a fake Sentry', () => {
  const home = mkdtempSync(join(tmpdir(), 'upload-home-'));
  const connections = join(home, 'connections.log');
  let run: Run;

  beforeAll(async () => {
    api.requests.length = 0;
    run = await upload({
      HOME: home,
      NODE_OPTIONS: `--require ${RECORDER}`,
      RECORD_CONNECTIONS_TO: connections,
      SENTRY_AUTH_TOKEN: TOKEN,
      SENTRY_ORG: 'acme',
      SENTRY_PROJECT: 'web',
      SENTRY_URL: api.url,
      // Blanks around a value are not part of it.
      SENTRY_RELEASE: ' release-7a1c ',
      // Would win over SENTRY_URL in the CLI, or name another project: the script drops them.
      SENTRY_HOST: 'http://127.0.0.1:9/',
      SENTRY_DSN: 'http://key@127.0.0.1:9/2',
    });
  }, 60_000);

  it('exits 0 after the chunk-upload exchange, every request with the token', () => {
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('[sourcemaps] uploading');
    expect(api.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /api/0/organizations/acme/',
      'GET /api/0/organizations/acme/chunk-upload/',
      'POST /api/0/organizations/acme/artifactbundle/assemble/',
      'POST /api/0/organizations/acme/chunk-upload/',
      'POST /api/0/organizations/acme/artifactbundle/assemble/',
    ]);
    for (const request of api.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    }
    const [first, last] = [api.assembled()[0], api.assembled().at(-1)];
    expect(last).toEqual(first);
    expect(last).toMatchObject({ projects: ['web'], version: 'release-7a1c' });
  });

  it('sends every client chunk and its map byte for byte, under the debug ID the build gave them', () => {
    const assembled = api.assembled().at(-1);
    const parts = (assembled?.chunks ?? []).map((checksum) => api.chunks.get(checksum));
    expect(parts.every((part) => part !== undefined)).toBe(true);
    const bundle = readArtifactBundle(Buffer.concat(parts as Buffer[]));
    const byUrl = new Map(
      Object.entries(bundle.manifest.files).map(([entry, file]) => [file.url, { entry, ...file }]),
    );

    const chunks = clientChunks();
    expect(byUrl.size).toBe(chunks.length * 2);
    for (const chunk of chunks) {
      const debugId = debugIdsOf(chunk.code).comment;
      const code = byUrl.get(`~/_build/assets/${chunk.name}`);
      const map = byUrl.get(`~/_build/assets/${chunk.name}.map`);
      expect(code?.type, chunk.name).toBe('minified_source');
      expect(code?.headers?.['debug-id'], chunk.name).toBe(debugId);
      expect(bundle.files.get(code?.entry ?? '')?.toString('utf8')).toBe(chunk.code);
      expect(map?.type, chunk.name).toBe('source_map');
      expect(map?.headers?.['debug-id'], chunk.name).toBe(debugId);
      const mapFile = readFileSync(join(CLIENT_MAPS_DIR, '_build/assets', `${chunk.name}.map`));
      // Buffer.equals: a deep toEqual over megabytes takes seconds.
      expect(bundle.files.get(map?.entry ?? '')?.equals(mapFile), chunk.name).toBe(true);
    }
  });

  it('connects to the fake only, and keeps nothing in HOME', () => {
    const port = new URL(api.url).port;
    const lines = readFileSync(connections, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(new Set(lines)).toEqual(new Set([`connect 127.0.0.1:${port}`]));
    expect(existsSync(join(home, '.sentry'))).toBe(false);
  });
});

describe('sourcemaps:upload refuses to start', () => {
  const READY = { SENTRY_AUTH_TOKEN: TOKEN, SENTRY_ORG: 'acme', SENTRY_PROJECT: 'web' };
  const MISSING = {
    token:
      '[sourcemaps] SENTRY_AUTH_TOKEN is not set: an organization auth token (Settings > Auth Tokens in Sentry)',
    org: "[sourcemaps] SENTRY_ORG is not set: the organization's slug",
    project: "[sourcemaps] SENTRY_PROJECT is not set: the project's slug",
    url: '[sourcemaps] SENTRY_URL is not an http(s) URL: your self-hosted Sentry, e.g. https://sentry.example.com/',
  };

  it.each<[string, Record<string, string>, string[]]>([
    ['nothing set', {}, [MISSING.token, MISSING.org, MISSING.project]],
    ['no token and no org', { SENTRY_PROJECT: 'web' }, [MISSING.token, MISSING.org]],
    ['a blank token', { ...READY, SENTRY_AUTH_TOKEN: '  ' }, [MISSING.token]],
    ['a URL without a scheme', { ...READY, SENTRY_URL: 'sentry.example.com' }, [MISSING.url]],
    [
      'no org and a file URL',
      { ...READY, SENTRY_ORG: '', SENTRY_URL: 'file:///etc/passwd' },
      [MISSING.org, MISSING.url],
    ],
    [
      'no project and a blank URL (unset)',
      { ...READY, SENTRY_PROJECT: '', SENTRY_URL: ' ' },
      [MISSING.project],
    ],
  ])('%s: names each problem on a line of its own and sends nothing', async (_case, env, lines) => {
    api.requests.length = 0;
    // The fake as SENTRY_URL unless the case names one: a run that went on would be seen.
    const run = await upload({ SENTRY_URL: api.url, ...env });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual(lines);
    expect(api.requests).toEqual([]);
  });

  it('without a build, says to run npm run build first and sends nothing', async () => {
    api.requests.length = 0;
    const empty = mkdtempSync(join(tmpdir(), 'no-build-'));
    const run = await upload(
      { SENTRY_AUTH_TOKEN: TOKEN, SENTRY_ORG: 'acme', SENTRY_PROJECT: 'web', SENTRY_URL: api.url },
      empty,
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /^\[sourcemaps\] no client chunks with debug IDs and source maps .*: run `npm run build` first\n$/,
    );
    expect(api.requests).toEqual([]);
  });
});
