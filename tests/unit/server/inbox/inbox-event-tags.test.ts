import { describe, expect, it } from 'vitest';
import {
  browserOf,
  eventTagsOf,
  handledOf,
  MAX_TAGS,
  osOf,
  traceIdOf,
  userKeyOf,
} from '#app/server/inbox/inbox-event';

describe('userKeyOf: Sentry’s `sentry:user` key', () => {
  it.each([
    ['no user', {}, undefined],
    ['an empty user', { user: {} }, undefined],
    ['an id', { user: { id: 'u-1', email: 'a@example.com' } }, 'id:u-1'],
    ['a numeric id, read leniently as Relay does', { user: { id: 42 } }, 'id:42'],
    // Sentry's order (EventUser.tag_value): id, username, email, ip.
    [
      'a username before an email',
      { user: { username: 'ann', email: 'a@example.com' } },
      'username:ann',
    ],
    [
      'an email',
      { user: { email: 'a@example.com', ip_address: '192.0.2.1' } },
      'email:a@example.com',
    ],
    ['an IPv4 address the SDK sent', { user: { ip_address: '192.0.2.1' } }, 'ip:192.0.2.1'],
    ['an IPv6 address the SDK sent', { user: { ip_address: '2001:db8::1' } }, 'ip:2001:db8::1'],
    // The ingest fills {{auto}} from the connection only when asked to infer: the inbox never does.
    ['{{auto}}, which names no address', { user: { ip_address: '{{auto}}' } }, undefined],
    ['an address that is not one', { user: { ip_address: 'localhost' } }, undefined],
    [
      'empty fields, skipped',
      { user: { id: '', username: '', email: 'b@example.com' } },
      'email:b@example.com',
    ],
    ['fields that are not text', { user: { id: { $: 1 }, username: ['x'] } }, undefined],
    ['a key past a tag value’s 200 characters', { user: { id: 'x'.repeat(198) } }, undefined],
    ['a key of exactly 200 characters', { user: { id: 'x'.repeat(197) } }, `id:${'x'.repeat(197)}`],
    ['a user that is not an object', { user: 'ann' }, undefined],
  ])('%s', (_, event, key) => {
    expect(userKeyOf(event)).toBe(key);
  });
});

describe('handledOf and traceIdOf', () => {
  const thrown = (mechanism: unknown) => ({
    exception: {
      values: [
        { type: 'Cause', mechanism: { type: 'chained', handled: true } },
        { type: 'Error', mechanism },
      ],
    },
  });
  it.each([
    ['unhandled', thrown({ type: 'auto.browser.global_handlers.onerror', handled: false }), false],
    ['handled', thrown({ type: 'generic', handled: true }), true],
    ['the thrown exception’s own mechanism, not its cause’s', thrown({ type: 'x' }), undefined],
    ['no exception', {}, undefined],
  ])('%s', (_, event, handled) => {
    expect(handledOf(event)).toBe(handled);
  });

  it.each([
    [
      { contexts: { trace: { trace_id: 'ABCDEF0123456789ABCDEF0123456789' } } },
      'abcdef0123456789abcdef0123456789',
    ],
    [{ contexts: { trace: { trace_id: 'not-a-trace' } } }, undefined],
    [{ contexts: { trace: 'x' } }, undefined],
    [{}, undefined],
  ])('trace id of %j', (event, id) => {
    expect(traceIdOf(event)).toBe(id);
  });
});

describe('eventTagsOf: the tags as Sentry derives them', () => {
  const CHROME =
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
  const browserEvent = {
    level: 'error',
    release: 'app@1.0.0',
    environment: 'production',
    transaction: '/sentry-example-page',
    request: {
      url: 'http://localhost:3000/sentry-example-page?x=1',
      headers: { 'User-Agent': CHROME },
    },
    user: { id: 'u-1' },
    exception: {
      values: [
        {
          type: 'Error',
          mechanism: { type: 'auto.browser.global_handlers.onerror', handled: false },
        },
      ],
    },
    tags: { digest: 'abc', level: 'not the level', count: 3 },
  };

  it('derives browser, os, url, release, environment, level, handled, mechanism, transaction and user, then the event’s own', () => {
    expect(eventTagsOf(browserEvent)).toEqual([
      ['browser', 'Chrome 156'],
      ['os', 'Linux'],
      ['url', '/sentry-example-page'],
      ['release', 'app@1.0.0'],
      ['environment', 'production'],
      ['level', 'error'],
      ['handled', 'no'],
      ['mechanism', 'auto.browser.global_handlers.onerror'],
      ['transaction', '/sentry-example-page'],
      ['user', 'id:u-1'],
      // A derived key wins over an own tag of that name, as Sentry's set_tag overwrites it.
      ['digest', 'abc'],
      ['count', '3'],
    ]);
  });

  it.each([
    [
      'contexts before the User-Agent, and the runtime',
      {
        contexts: {
          browser: { name: 'Firefox', version: '140.0.1' },
          os: { name: 'Windows', version: '10' },
          runtime: { name: 'node', version: 'v20.19.0' },
        },
        request: { headers: [['user-agent', CHROME]] },
      },
      [
        ['browser', 'Firefox 140'],
        ['os', 'Windows 10'],
        ['runtime', 'node v20'],
      ],
    ],
    [
      'a handled error',
      { exception: { values: [{ mechanism: { type: 'generic', handled: true } }] } },
      [
        ['handled', 'yes'],
        ['mechanism', 'generic'],
      ],
    ],
    [
      'the page from an own url tag',
      { tags: [['url', 'https://example.com/a?b=1']] },
      [['url', '/a']],
    ],
    ['nothing to derive', {}, []],
  ])('%s', (_, event, tags) => {
    expect(eventTagsOf(event)).toEqual(tags);
  });

  it('cuts each text at 200 characters, makes it well formed, and keeps at most 50 tags', () => {
    const tags = Object.fromEntries(
      Array.from({ length: 80 }, (_, i) => [`k${i}${'x'.repeat(300)}`, `\ud800${'v'.repeat(300)}`]),
    );
    const derived = eventTagsOf({ tags });
    expect(derived).toHaveLength(MAX_TAGS);
    for (const [key, value] of derived) {
      expect(key.length).toBeLessThanOrEqual(200);
      expect(value.length).toBeLessThanOrEqual(200);
      expect(value.startsWith('\ufffd')).toBe(true);
    }
  });
});

describe('browser and OS from a User-Agent, as Relay fills contexts', () => {
  it.each([
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
      { name: 'Chrome', version: '156' },
      { name: 'Linux' },
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36 Edg/140.0.3485.54',
      { name: 'Edge', version: '140' },
      { name: 'Windows', version: '10' },
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.4 Safari/605.1.15',
      { name: 'Safari', version: '18' },
      { name: 'Mac OS X', version: '10' },
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.4 Mobile/15E148 Safari/604.1',
      { name: 'Mobile Safari', version: '18' },
      { name: 'iOS', version: '18' },
    ],
    [
      'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:139.0) Gecko/20100101 Firefox/139.0',
      { name: 'Firefox', version: '139' },
      // uap-core names the distribution, as ua-parser-js does.
      { name: 'Ubuntu' },
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/137.0.0.0 Mobile Safari/537.36',
      { name: 'Chrome Mobile', version: '137' },
      { name: 'Android', version: '14' },
    ],
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
      // uap-core's own family for it (ua-parser-js says "Chrome Headless").
      { name: 'HeadlessChrome', version: '156' },
      { name: 'Linux' },
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1',
      { name: 'Chrome Mobile iOS', version: '120' },
      { name: 'iOS', version: '17' },
    ],
    [
      'Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36',
      { name: 'Samsung Internet', version: '23' },
      { name: 'Android', version: '13' },
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 OPR/106.0.0.0',
      { name: 'Opera', version: '106' },
      { name: 'Windows', version: '10' },
    ],
    [
      'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      { name: 'Chrome', version: '120' },
      { name: 'Chrome OS', version: '14541' },
    ],
    ['curl/8.5.0', undefined, undefined],
    ['', undefined, undefined],
  ])('%s', (agent, browser, os) => {
    expect(browserOf(agent)).toEqual(browser);
    expect(osOf(agent)).toEqual(os);
  });

  it('reads a hostile agent in bounded time: only its first 500 characters', () => {
    const agent = `${'Mozilla/5.0 '.repeat(10_000)}Chrome/1`;
    expect(browserOf(agent)).toBeUndefined();
  });
});
