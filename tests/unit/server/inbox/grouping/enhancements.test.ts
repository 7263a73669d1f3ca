import { describe, expect, it } from 'vitest';
import {
  applyContributionRules,
  classifyFrames,
  globToRegExp,
  type MatchFrame,
} from '#app/server/inbox/grouping/enhancements';

const js = (frame: Partial<MatchFrame>): MatchFrame => ({
  family: 'javascript',
  function: '<unknown>',
  ...frame,
});
const java = (module: string, fn = 'run'): MatchFrame => ({
  family: 'other',
  function: fn,
  module,
  inApp: false,
});

function run(frames: MatchFrame[]): { inApp: Array<boolean | undefined>; counts: boolean[] } {
  classifyFrames(frames);
  const counts = frames.map(() => true);
  applyContributionRules(frames, counts);
  return { inApp: frames.map((frame) => frame.inApp), counts };
}

describe('globToRegExp: globset as Sentry’s rules use it', () => {
  it.each<[string, boolean, string, boolean]>([
    ['**/node_modules/**', true, '/app/node_modules/react/package.json', true],
    ['**/node_modules/**', true, 'node_modules/react/package.json', true],
    ['**/node_modules/**', true, '/app/my_node_modules/x.js', false],
    // `*` stops at `/` in paths, not elsewhere.
    ['java.*', false, 'java.util.concurrent.Foo', true],
    ['**/*newrelic*/**', true, '/x/newrelic-agent/y.js', true],
    ['**/*newrelic*/**', true, '/x/a/newrelic/b/y.js', true],
    // `**` glued to other characters is two `*`: it does not cross `/`.
    ['webpack:**', true, 'webpack:///./src/app.js', false],
    ['**https://unpkg.com/**', true, 'https://unpkg.com/react@18/umd/react.js', true],
    // Case-insensitive, as Sentry's engine builds every glob.
    ['module:@babel/**', false, 'MODULE:@Babel/x', true],
  ])('%s (path-like %s) against %s', (glob, pathLike, value, expected) => {
    expect(globToRegExp(glob, pathLike).test(value)).toBe(expected);
  });
});

describe('the default stack trace rules', () => {
  it('takes node_modules, CDN and Go module frames out of the app', () => {
    const frames = [
      js({ path: '/srv/node_modules/express/lib/router.js', inApp: true }),
      js({ path: 'https://unpkg.com/react@18/umd/react.js', inApp: true }),
      {
        family: 'other',
        function: 'f',
        path: '/home/u/go/pkg/mod/x/y.go',
        inApp: true,
      } as MatchFrame,
      js({ path: '/srv/app/routes.js', inApp: true }),
    ];
    expect(run(frames).inApp).toEqual([false, false, false, true]);
  });

  it('never counts Babel, core-js, regenerator and tslib helpers', () => {
    const frames = [
      js({ module: '@babel/runtime/helpers/asyncToGenerator', inApp: true }),
      js({ module: 'core-js/internals/task' }),
      js({ module: 'tslib/tslib.es6' }),
      js({ module: 'app/main', inApp: true }),
    ];
    expect(run(frames)).toEqual({
      inApp: [false, false, false, true],
      counts: [false, false, false, true],
    });
  });

  it('never counts Node’s microtask plumbing, whatever the platform', () => {
    const frames = [
      js({ function: 'processTicksAndRejections' }),
      js({ function: 'runMicrotasks' }),
    ];
    expect(run(frames).counts).toEqual([false, false]);
  });

  it('takes reportError and everything it called out of the app', () => {
    const frames = [
      js({ function: 'handler', inApp: true }),
      js({ function: 'reportError', inApp: true }),
      js({ function: 'inner', inApp: true }),
    ];
    expect(run(frames).inApp).toEqual([true, false, false]);
  });

  it('drops a thread base and its callers, reflection, and std frames called by std frames', () => {
    const frames = [
      java('com.example.Main', 'main'),
      java('java.util.concurrent.ThreadPoolExecutor', 'runWorker'),
      java('java.util.concurrent.FutureTask'),
      java('java.util.concurrent.Executors$RunnableAdapter', 'call'),
      java('java.lang.reflect.Method', 'invoke'),
      java('com.example.Job', 'work'),
    ];
    expect(run(frames).counts).toEqual([false, false, true, false, false, true]);
  });

  it('takes frameworks out of the app and never counts Sentry’s own Java frames', () => {
    const frames = [
      { ...java('org.springframework.web.Servlet'), inApp: true },
      { ...java('io.sentry.Sentry'), inApp: true },
      { ...java('com.example.Controller'), inApp: true },
    ];
    expect(run(frames)).toEqual({ inApp: [false, false, true], counts: [true, false, true] });
  });

  it('leaves a frame’s in-app flag alone when no rule matches, even when unset', () => {
    expect(run([js({ path: '/srv/app/a.js' })]).inApp).toEqual([undefined]);
  });
});
