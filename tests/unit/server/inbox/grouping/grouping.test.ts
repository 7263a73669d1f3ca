import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  GROUPING_CONFIG,
  groupEvent,
  hashFromValues,
  issueCulprit,
  issueTitle,
} from '#app/server/inbox/grouping/grouping';

type Json = Record<string, unknown>;

/** md5 of the values one after the other, computed here and not by the module under test. */
function md5(...values: string[]): string {
  const hash = createHash('md5');
  for (const value of values) hash.update(value, 'utf8');
  return hash.digest('hex');
}

function frame(fields: Json): Json {
  return { in_app: true, ...fields };
}

function jsError(frames: Json[], extra: Json = {}): Json {
  return {
    platform: 'javascript',
    exception: { values: [{ type: 'TypeError', value: 'x is undefined', stacktrace: { frames } }] },
    ...extra,
  };
}

const appFrame = (fn: string, file: string, line = 10): Json =>
  frame({
    function: fn,
    filename: file,
    abs_path: `https://example.com${file}`,
    lineno: line,
    colno: 5,
  });

describe('groupEvent: what a frame contributes', () => {
  it('hashes type and stack, not the value, when a stack counts: line and column never count', () => {
    const one = groupEvent(jsError([appFrame('render', '/app/page.js', 10)]));
    const moved = groupEvent(jsError([appFrame('render', '/app/page.js', 99)]));
    const otherValue = groupEvent({
      ...jsError([appFrame('render', '/app/page.js')]),
      exception: {
        values: [
          {
            type: 'TypeError',
            value: 'y is undefined',
            stacktrace: { frames: [appFrame('render', '/app/page.js')] },
          },
        ],
      },
    });
    // A URL's file does not count (Sentry: "frame points to a URL"): the function does.
    expect(one.variants.app?.values).toEqual(['render', 'TypeError']);
    expect(one.hashes).toEqual([md5('render', 'TypeError')]);
    expect(moved.hashes).toEqual(one.hashes);
    expect(otherValue.hashes).toEqual(one.hashes);
    expect(one.config).toBe(GROUPING_CONFIG);
  });

  it('uses the module over the file, and the lower-cased basename of a non-URL file', () => {
    const result = groupEvent({
      platform: 'python',
      exception: {
        values: [
          {
            type: 'KeyError',
            value: "'id'",
            stacktrace: {
              frames: [
                frame({ module: 'app.views', filename: 'app/views.py', function: 'index' }),
                frame({ filename: 'C:\\Src\\Helpers.PY', function: 'Helper.get' }),
              ],
            },
          },
        ],
      },
    });
    expect(result.variants.app?.values).toEqual([
      'app.views',
      'index',
      'helpers.py',
      'Helper.get',
      'KeyError',
    ]);
  });

  it('keeps only the last dot-segment of a JavaScript function', () => {
    const result = groupEvent(
      jsError([frame({ function: 'Foo.prototype.bar', module: 'app/foo' })]),
    );
    expect(result.variants.app?.values).toEqual(['app/foo', 'bar', 'TypeError']);
  });

  it('drops a recursion frame, identical to the one before it', () => {
    const call = frame({ function: 'walk', module: 'app/tree', lineno: 4 });
    const deep = groupEvent(
      jsError([call, call, call, frame({ function: 'leaf', module: 'app/tree' })]),
    );
    const shallow = groupEvent(jsError([call, frame({ function: 'leaf', module: 'app/tree' })]));
    expect(deep.hashes).toEqual(shallow.hashes);
    expect(deep.variants.app?.values).toEqual([
      'app/tree',
      'walk',
      'app/tree',
      'leaf',
      'TypeError',
    ]);
  });

  it('drops low-quality JavaScript frames: eval, <anonymous>, [native code]', () => {
    const good = frame({ function: 'run', module: 'app/run' });
    const noisy = groupEvent(
      jsError([
        frame({ function: 'eval', module: 'app/x' }),
        frame({ function: 'forEach', abs_path: '[native code]', filename: '[native code]' }),
        frame({ function: 'Array.map', abs_path: '<anonymous>', filename: '<anonymous>' }),
        good,
      ]),
    );
    expect(noisy.hashes).toEqual(groupEvent(jsError([good])).hashes);
  });

  it('uses the context line, whitespace collapsed, instead of the function of a source-mapped frame', () => {
    const mapped = (fn: string, line: string) =>
      frame({
        function: fn,
        module: 'app/form',
        context_line: line,
        data: { sourcemap: 'https://example.com/app.js.map' },
      });
    const result = groupEvent(jsError([mapped('a.onSubmit', '    this.submit(\t data );')]));
    expect(result.variants.app?.values).toEqual(['app/form', 'this.submit( data );', 'TypeError']);
    // The minified name differs from build to build; the line does not.
    expect(groupEvent(jsError([mapped('t.n', 'this.submit( data );')])).hashes).toEqual(
      result.hashes,
    );
    // A line over 120 characters does not count, so the function does.
    const long = groupEvent(jsError([mapped('a.onSubmit', `x(${'a'.repeat(130)})`)]));
    expect(long.variants.app?.values).toEqual(['app/form', 'onSubmit', 'TypeError']);
  });

  it('counts a server SDK’s context line beside the function', () => {
    const result = groupEvent({
      platform: 'node',
      exception: {
        values: [
          {
            type: 'Error',
            value: 'boom',
            stacktrace: {
              frames: [
                frame({ function: 'handler', module: 'routes', context_line: '  throw err;' }),
              ],
            },
          },
        ],
      },
    });
    expect(result.variants.app?.values).toEqual(['routes', 'handler', 'throw err;', 'Error']);
  });

  it('strips a JavaScript filename’s query string', () => {
    const withQuery = groupEvent(
      jsError([frame({ function: 'f', filename: 'app.js?v=3', abs_path: 'app.js?v=3' })]),
    );
    const without = groupEvent(
      jsError([frame({ function: 'f', filename: 'app.js', abs_path: 'app.js' })]),
    );
    expect(withQuery.hashes).toEqual(without.hashes);
    expect(without.variants.app?.values).toEqual(['app.js', 'f', 'TypeError']);
  });
});

describe('groupEvent: app and system variants', () => {
  it('hashes only in-app frames for app, every frame for system, app first', () => {
    const result = groupEvent(
      jsError([
        frame({ function: 'dispatch', filename: '/srv/node_modules/lib/index.js', in_app: true }),
        frame({ function: 'handle', filename: '/srv/app/routes.js' }),
      ]),
    );
    // The node_modules frame is out of the app whatever the SDK said.
    expect(result.variants.app?.values).toEqual(['routes.js', 'handle', 'TypeError']);
    expect(result.variants.system?.values).toEqual([
      'index.js',
      'dispatch',
      'routes.js',
      'handle',
      'TypeError',
    ]);
    expect(result.hashes).toEqual([result.variants.app?.hash, result.variants.system?.hash]);
  });

  it('has no app hash when no in-app frame counts but other frames do', () => {
    const result = groupEvent(jsError([frame({ function: 'lib', module: 'lib', in_app: false })]));
    expect(result.variants.app).toEqual({ hash: null, contributes: false, values: [] });
    expect(result.hashes).toEqual([md5('lib', 'lib', 'TypeError')]);
  });

  it('gives one hash when every frame is in-app', () => {
    const result = groupEvent(jsError([frame({ function: 'f', module: 'm' })]));
    expect(result.hashes).toEqual([md5('m', 'f', 'TypeError')]);
    expect(result.variants.system?.contributes).toBe(false);
  });

  it('walks the whole chain of exceptions, each its stack then its type', () => {
    const result = groupEvent({
      platform: 'python',
      exception: {
        values: [
          {
            type: 'OSError',
            value: 'disk',
            stacktrace: { frames: [frame({ function: 'read', module: 'io' })] },
          },
          { type: 'AppError', value: 'failed 3 times' },
        ],
      },
    });
    // The value of an exception without a stack counts, parameterised. As in Sentry, such an
    // exception has only an app variant, so the system variant leaves it out.
    expect(result.hashes).toEqual([
      md5('io', 'read', 'OSError', 'AppError', 'failed <int> times'),
      md5('io', 'read', 'OSError'),
    ]);
  });
});

describe('groupEvent: threads and messages', () => {
  const threadEvent = (threads: Json[], extra: Json = {}): Json => ({
    platform: 'python',
    threads: { values: threads },
    ...extra,
  });
  const stack = (fn: string) => ({ frames: [frame({ function: fn, module: 'worker' })] });

  it('uses the crashed thread’s stack, then the current one, then the only one', () => {
    const crashed = groupEvent(
      threadEvent([
        { id: 1, current: true, stacktrace: stack('idle') },
        { id: 2, crashed: true, stacktrace: stack('crash') },
      ]),
    );
    expect(crashed.hashes).toEqual([md5('worker', 'crash')]);
    const current = groupEvent(
      threadEvent([{ id: 1 }, { id: 2, current: true, stacktrace: stack('here') }]),
    );
    expect(current.hashes).toEqual([md5('worker', 'here')]);
    const only = groupEvent(threadEvent([{ id: 1, stacktrace: stack('alone') }]));
    expect(only.hashes).toEqual([md5('worker', 'alone')]);
  });

  it('groups a message event by its thread’s stack, not its message (attachStacktrace)', () => {
    const result = groupEvent(
      threadEvent([{ id: 1, current: true, stacktrace: stack('log') }], {
        logentry: { formatted: 'hi 1' },
      }),
    );
    expect(result.hashes).toEqual([md5('worker', 'log')]);
    expect(result.variants.default).toMatchObject({ hash: null, contributes: false });
  });

  it('groups a message event by its own stack trace', () => {
    const result = groupEvent({
      platform: 'javascript',
      message: 'Something happened 3 times',
      stacktrace: { frames: [frame({ function: 'track', module: 'app/metrics' })] },
    });
    expect(result.hashes).toEqual([md5('app/metrics', 'track')]);
  });

  it('groups a message by its template when params filled it in, parameterised, two lines', () => {
    const one = groupEvent({
      logentry: { message: 'User %s failed %d times', params: ['ann', 3] },
    });
    const two = groupEvent({
      logentry: { message: 'User %s failed %d times', params: ['bob', 7] },
    });
    expect(one.hashes).toEqual([md5('User %s failed %d times')]);
    expect(two.hashes).toEqual(one.hashes);
    const formatted = groupEvent({ message: 'Order 12 of 2024-01-02\nline two\nline three' });
    expect(formatted.variants.default?.values).toEqual(['Order <int> of <date>\nline two...']);
  });

  it('falls back to md5 of nothing when nothing can group the event', () => {
    expect(groupEvent({ platform: 'javascript' })).toMatchObject({
      hashes: ['d41d8cd98f00b204e9800998ecf8427e'],
      variants: { fallback: { hash: 'd41d8cd98f00b204e9800998ecf8427e', contributes: true } },
    });
  });
});

describe('groupEvent: fingerprints', () => {
  const base = jsError([frame({ function: 'f', module: 'm' })]);
  const defaultValues = ['m', 'f', 'TypeError'];

  it.each([
    ['missing', undefined],
    ['{{ default }}', ['{{ default }}']],
    ['{{default}}', ['{{default}}']],
    ['empty', []],
  ])('treats a %s fingerprint as the default', (_name, fingerprint) => {
    const result = groupEvent({ ...base, fingerprint });
    expect(result.hashes).toEqual([md5(...defaultValues)]);
    expect(result.fingerprint).toBeUndefined();
  });

  it('splices the default grouping’s values into {{ default }}, where it stands', () => {
    const result = groupEvent({ ...base, fingerprint: ['checkout', '{{default}}', 'v2'] });
    expect(result.hashes).toEqual([md5('checkout', ...defaultValues, 'v2')]);
    expect(result.fingerprint).toEqual(['checkout', '{{ default }}', 'v2']);
  });

  it('hashes a fingerprint without {{ default }} alone', () => {
    const result = groupEvent({ ...base, fingerprint: ['database-unavailable'] });
    expect(result.hashes).toEqual([md5('database-unavailable')]);
    expect(result.variants.custom_fingerprint?.values).toEqual(['database-unavailable']);
    expect(result.variants.app?.contributes).toBe(false);
  });

  it('resolves Sentry’s variables, and leaves an unknown one as written', () => {
    const event = {
      ...base,
      transaction: '/checkout',
      level: 'warning',
      logger: 'payments',
      tags: { region: 'eu' },
      fingerprint: [
        '{{ type }}',
        '{{ error.value }}',
        '{{ message }}',
        '{{ transaction }}',
        '{{ function }}',
        '{{ module }}',
        '{{ level }}',
        '{{ logger }}',
        '{{ tags.region }}',
        '{{ tags.missing }}',
        '{{ nonsense }}',
      ],
    };
    const resolved = [
      'TypeError',
      'x is undefined',
      'x is undefined',
      '/checkout',
      'f',
      'm',
      'warning',
      'payments',
      'eu',
      '<no-value-for-tag-missing>',
      '{{ nonsense }}',
    ];
    const result = groupEvent(event);
    expect(result.fingerprint).toEqual(resolved);
    expect(result.hashes).toEqual([md5(...resolved)]);
  });

  it('groups every JavaScript ChunkLoadError together, as Sentry’s built-in rule does', () => {
    const one = groupEvent(
      jsError([], { exception: { values: [{ type: 'ChunkLoadError', value: 'a' }] } }),
    );
    const two = groupEvent({
      platform: 'javascript',
      exception: { values: [{ type: 'Error', value: 'ChunkLoadError: Loading chunk 7 failed.' }] },
    });
    expect(one.hashes).toEqual([md5('chunkloaderror')]);
    expect(two.hashes).toEqual(one.hashes);
    expect(two.builtInFingerprint).toBe(true);
    expect(
      groupEvent({
        ...base,
        platform: 'python',
        exception: { values: [{ type: 'ChunkLoadError' }] },
      }).hashes,
    ).not.toEqual(one.hashes);
  });

  it('groups a hydration error by the page it happened on', () => {
    const hydration = (transaction: string) =>
      groupEvent({
        platform: 'javascript',
        tags: { transaction },
        exception: {
          values: [{ type: 'Error', value: 'Text content does not match server-rendered HTML.' }],
        },
      });
    expect(hydration('/about').hashes).toEqual([md5('hydrationerror', '/about')]);
    expect(hydration('/blog').hashes).toEqual([md5('hydrationerror', '/blog')]);
  });

  it('uses a legacy checksum as the hash', () => {
    expect(groupEvent({ ...base, checksum: 'a'.repeat(32) }).hashes).toEqual(['a'.repeat(32)]);
    expect(groupEvent({ ...base, checksum: 'release-1' }).hashes).toEqual([md5('release-1')]);
  });
});

describe('groupEvent: Relay’s normalisation first', () => {
  it('splits "Type: value" when the SDK sent no type', () => {
    const split = groupEvent({ exception: { values: [{ value: 'ValueError: bad input' }] } });
    const typed = groupEvent({
      exception: { values: [{ type: 'ValueError', value: 'bad input' }] },
    });
    expect(split.hashes).toEqual(typed.hashes);
    expect(split.title).toBe('ValueError: bad input');
  });

  it('takes a frame’s filename from its URL’s path when it has none', () => {
    const result = groupEvent(
      jsError([frame({ abs_path: 'http://localhost:3000/assets/App.JS', function: 'go' })]),
    );
    // The path gives the file, but a URL's file does not count.
    expect(result.variants.app?.values).toEqual(['go', 'TypeError']);
    expect(result.culprit).toBe('go(/assets/App.JS)');
  });
});

describe('issue title and culprit', () => {
  it.each<[string, Json, string]>([
    ['type: value', jsError([]), 'TypeError: x is undefined'],
    [
      'first line of the value, cut at 100',
      { exception: { values: [{ type: 'E', value: `${'v'.repeat(120)}\nmore` }] } },
      `E: ${'v'.repeat(97)}...`,
    ],
    [
      'the type alone for an empty value',
      { exception: { values: [{ type: 'AbortError', value: '' }] } },
      'AbortError',
    ],
    [
      '"Error" for a missing type',
      { exception: { values: [{ value: 'no colon here' }] } },
      'Error: no colon here',
    ],
    [
      'the crash function for a synthetic exception',
      {
        exception: {
          values: [
            {
              type: 'SIGSEGV',
              value: 'x',
              mechanism: { synthetic: true },
              stacktrace: { frames: [frame({ function: 'crash_here' })] },
            },
          ],
        },
      },
      'crash_here',
    ],
    [
      'the last exception of a chain',
      {
        exception: {
          values: [
            { type: 'Cause', value: 'c' },
            { type: 'Outer', value: 'o' },
          ],
        },
      },
      'Outer: o',
    ],
    [
      'the formatted message',
      { logentry: { message: 'User %s failed', params: ['bob'] } },
      'User bob failed',
    ],
    ['its first line, the message stripped', { message: '  line one  \nline two  ' }, 'line one  '],
    ['<unlabeled event> without either', {}, '<unlabeled event>'],
  ])('title: %s', (_name, event, expected) => {
    expect(groupEvent(event).title).toBe(expected);
    expect(issueTitle(event)).toBe(expected);
  });

  it.each<[string, Json, string]>([
    [
      'the top in-app frame, `file in function`',
      {
        platform: 'python',
        exception: {
          values: [
            {
              type: 'E',
              stacktrace: {
                frames: [
                  frame({ module: 'app.views', function: 'index' }),
                  frame({ module: 'django.core', function: 'get', in_app: false }),
                ],
              },
            },
          ],
        },
      },
      'app.views in index',
    ],
    [
      '`function(file)` for JavaScript, as Sentry writes it',
      jsError([
        frame({ filename: '/app/page.js', function: 'render' }),
        frame({ filename: '/srv/node_modules/react.js', function: 'x' }),
      ]),
      'render(/app/page.js)',
    ],
    [
      'the top frame when none is in-app',
      jsError([frame({ module: 'lib', function: 'go', in_app: false })]),
      'go(lib)',
    ],
    [
      'the transaction when there is one',
      jsError([frame({ module: 'm', function: 'f' })], { transaction: '/checkout' }),
      '/checkout',
    ],
    [
      'the page URL without a stack',
      { message: 'hi', request: { url: 'https://example.com/a' } },
      'https://example.com/a',
    ],
  ])('culprit: %s', (_name, event, expected) => {
    expect(groupEvent(event).culprit).toBe(expected);
    expect(issueCulprit(event)).toBe(expected);
  });
});

describe('groupEvent as a pure function', () => {
  it('leaves its input as it was', () => {
    const event = jsError([frame({ function: 'f', filename: 'a.js?v=1', abs_path: 'a.js?v=1' })], {
      fingerprint: ['{{ default }}', 'x'],
    });
    const before = JSON.stringify(event);
    groupEvent(event);
    expect(JSON.stringify(event)).toBe(before);
  });

  it('reads anything without throwing', () => {
    for (const input of [
      null,
      'x',
      42,
      [],
      { exception: 'x' },
      { exception: { values: [null, 1, {}] } },
      { threads: [{}] },
    ]) {
      expect(groupEvent(input).hashes.length).toBeGreaterThan(0);
    }
  });

  it('hashes a lone surrogate as Python does, as "?"', () => {
    expect(hashFromValues(['a\uD800b'])).toBe(md5('a?b'));
    expect(hashFromValues(['é', '😀'])).toBe(md5('é😀'));
  });

  it('groups an 8 KB hostile value and a 250-frame stack in one call', () => {
    const hostile = `${'a.'.repeat(2048)}${'1'.repeat(4095)}x`;
    const frames = Array.from({ length: 250 }, (_, i) =>
      frame({ function: `f${i % 7}`, module: `m${i}` }),
    );
    const result = groupEvent({
      exception: { values: [{ type: 'E', value: hostile, stacktrace: { frames } }] },
    });
    expect(hostile.length).toBeGreaterThanOrEqual(8192);
    expect(result.variants.app?.values.length).toBe(501);
  });
});
