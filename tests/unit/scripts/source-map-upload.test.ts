import { describe, expect, it } from 'vitest';
import {
  debugIdOf,
  environmentProblems,
  uploadCommand,
} from '../../../scripts/source-map-upload.mjs';

const READY = { SENTRY_AUTH_TOKEN: 'sntrys_abc', SENTRY_ORG: 'acme', SENTRY_PROJECT: 'web' };
const WHERE = { directory: '/tmp/x/client', configDir: '/tmp/x/config' };

describe('environmentProblems', () => {
  it.each([
    ['everything set', READY, []],
    [
      'nothing set',
      {},
      [
        'SENTRY_AUTH_TOKEN is not set: an organization auth token (Settings > Auth Tokens in Sentry)',
        "SENTRY_ORG is not set: the organization's slug",
        "SENTRY_PROJECT is not set: the project's slug",
      ],
    ],
    [
      'no token',
      { ...READY, SENTRY_AUTH_TOKEN: undefined },
      [
        'SENTRY_AUTH_TOKEN is not set: an organization auth token (Settings > Auth Tokens in Sentry)',
      ],
    ],
    [
      'a blank token',
      { ...READY, SENTRY_AUTH_TOKEN: '  ' },
      [
        'SENTRY_AUTH_TOKEN is not set: an organization auth token (Settings > Auth Tokens in Sentry)',
      ],
    ],
    ['no org', { ...READY, SENTRY_ORG: '' }, ["SENTRY_ORG is not set: the organization's slug"]],
    [
      'no project',
      { ...READY, SENTRY_PROJECT: undefined },
      ["SENTRY_PROJECT is not set: the project's slug"],
    ],
    ['a self-hosted URL', { ...READY, SENTRY_URL: 'https://sentry.example.com/' }, []],
    ['a blank URL (unset)', { ...READY, SENTRY_URL: ' ' }, []],
    [
      'a URL without a scheme',
      { ...READY, SENTRY_URL: 'sentry.example.com' },
      [
        'SENTRY_URL is not an http(s) URL: your self-hosted Sentry, e.g. https://sentry.example.com/',
      ],
    ],
    [
      'no org and a file URL',
      { ...READY, SENTRY_ORG: undefined, SENTRY_URL: 'file:///etc/passwd' },
      [
        "SENTRY_ORG is not set: the organization's slug",
        'SENTRY_URL is not an http(s) URL: your self-hosted Sentry, e.g. https://sentry.example.com/',
      ],
    ],
  ] as const)('%s', (_case, env, expected) => {
    expect(environmentProblems(env)).toEqual(expected);
  });
});

describe('uploadCommand', () => {
  it.each([
    ['sentry.io, no release', READY, ['sourcemap', 'upload', WHERE.directory]],
    [
      'a release',
      { ...READY, SENTRY_RELEASE: ' 1.4.2 ' },
      ['sourcemap', 'upload', WHERE.directory, '--release', '1.4.2'],
    ],
    [
      'a blank release (none)',
      { ...READY, SENTRY_RELEASE: '' },
      ['sourcemap', 'upload', WHERE.directory],
    ],
    [
      'self-hosted with a release',
      { ...READY, SENTRY_URL: 'https://sentry.example.com/', SENTRY_RELEASE: 'abc123' },
      ['sourcemap', 'upload', WHERE.directory, '--release', 'abc123'],
    ],
  ] as const)('arguments: %s', (_case, env, args) => {
    expect(uploadCommand(env, WHERE).args).toEqual(args);
  });

  it.each([
    ['sentry.io', READY, undefined],
    ['self-hosted', { ...READY, SENTRY_URL: ' http://127.0.0.1:9000/ ' }, 'http://127.0.0.1:9000/'],
  ] as const)('environment, %s: exactly our Sentry variables', (_case, env, url) => {
    const child = uploadCommand(env, WHERE).env;
    const sentryVariables = Object.fromEntries(
      Object.entries(child).filter(([name]) => name.startsWith('SENTRY_')),
    );
    expect(sentryVariables).toEqual({
      SENTRY_AUTH_TOKEN: 'sntrys_abc',
      SENTRY_ORG: 'acme',
      SENTRY_PROJECT: 'web',
      SENTRY_FORCE_ENV_TOKEN: '1',
      SENTRY_CONFIG_DIR: '/tmp/x/config',
      SENTRY_CLI_NO_TELEMETRY: '1',
      SENTRY_CLI_NO_UPDATE_CHECK: '1',
      ...(url ? { SENTRY_URL: url } : {}),
    });
  });

  it('keeps the rest of the environment and drops every other SENTRY_ variable', () => {
    const env = uploadCommand(
      {
        ...READY,
        PATH: '/usr/bin',
        HTTPS_PROXY: 'http://proxy:3128',
        SENTRY_HOST: 'https://elsewhere.example.com',
        SENTRY_DSN: 'https://key@o1.ingest.example.com/2',
        SENTRY_TOKEN: 'legacy',
        SENTRY_RELEASE: 'r1',
      },
      WHERE,
    ).env;
    expect(env.PATH).toBe('/usr/bin');
    expect(env.HTTPS_PROXY).toBe('http://proxy:3128');
    for (const dropped of ['SENTRY_HOST', 'SENTRY_DSN', 'SENTRY_TOKEN', 'SENTRY_RELEASE']) {
      expect(env).not.toHaveProperty(dropped);
    }
  });
});

describe('debugIdOf', () => {
  const id = 'd283b619-1ce9-4ab9-b3ec-91334c3c1a05';
  it.each([
    ['the comment at the end', `export{a};\n\n//# debugId=${id}`, id],
    ['a trailing newline', `x;\n//# debugId=${id}\n`, id],
    ['no comment', 'export{a};', undefined],
    ['a comment not at the end', `//# debugId=${id}\nexport{a};`, undefined],
    ['not a UUID', 'x;\n//# debugId=abc', undefined],
  ])('%s', (_case, code, expected) => {
    expect(debugIdOf(code)).toBe(expected);
  });
});
