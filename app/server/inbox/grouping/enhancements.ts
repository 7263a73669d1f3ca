/**
 * Sentry's default stack trace rules ("grouping enhancements") for the `newstyle:2023-01-11`
 * config: which frames are in-app, which belong to a category, and which do not count for
 * grouping. They decide the app hash as much as the frames do: `node_modules` is not in-app,
 * Babel and core-js helpers never count, `java.*` below other `java.*` frames never counts.
 * Pure.
 *
 * The rules are Sentry's own lines from getsentry/sentry
 * src/sentry/grouping/enhancer/enhancement-configs/all-platforms@2023-01-11.txt (FSL), in their
 * order, keeping those that can touch a frame of a non-native platform: the `family:native`
 * lines, and the category chains only native rules start (driver, gl, malloc, throw, handler),
 * are left out with native grouping itself. They run as Sentry's Rust engine runs them
 * (getsentry/ophio rust/src/enhancers): rule by rule, each rule matched against every frame
 * first and applied after; matchers are globs as the `globset` crate reads them,
 * case-insensitive, path-like for paths (`*` stops at `/`, `**` only between separators).
 *
 * Frames are oldest first, as events carry them: `^` reaches the frames after the match (those
 * it called, towards the crash), `v` the frames before it (its callers).
 */
import { processShared } from '../../../start-1.120/process-shared.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'grouping-rules': { classifiers: Rule[]; contributions: Rule[] };
  }
}

const RULES = `
family:javascript stack.abs_path:org-dartlang-sdk:///** -app -group
family:javascript module:**/packages/flutter/** -app
stack.abs_path:package:sentry/** -app -group
stack.abs_path:package:sentry_flutter/** -app -group
stack.abs_path:package:sentry_logging/** -app -group
stack.abs_path:package:sentry_dio/** -app -group
stack.abs_path:package:sentry_file/** -app -group
stack.abs_path:package:sentry_hive/** -app -group
stack.abs_path:package:sentry_isar/** -app -group
stack.abs_path:package:sentry_sqflite/** -app -group
stack.abs_path:package:sentry_drift/** -app -group
stack.abs_path:package:sentry_isar/** -app
stack.abs_path:package:sentry_link/** -app
stack.abs_path:package:sentry_firebase_remote_config/** -app
module:dalvik.system.* category=system
module:com.android.* category=system
package:/apex/com.android.*/lib*/** category=system
module:com.lenovo.lsf.* category=system
module:com.lenovo.payplus.* category=system
module:java.* category=std
module:com.google.crypto.* category=std
module:com.google.android.* category=std
module:javax.crypto.* category=std
module:android.database.* category=std
module:androidx.* category=std
module:android.* category=std
module:android.os.* category=system
module:android.view.* category=ui
module:android.text.* category=ui
module:android.widget.* category=ui
module:android.app.Dialog category=ui
module:androidx.*.widget.* category=ui
module:com.google.android.material.* category=ui
category:ui function:handleMessage category=indirection
category:ui function:run category=indirection
module:android.os.AsyncTask* function:call category=threadbase
module:java.util.concurrent.ThreadPoolExecutor* function:runWorker category=threadbase
module:android.os.* function:call category=threadbase
module:android.app.ActivityThread function:main category=threadbase
module:android.view.View function:layout category=threadbase
module:android.os.Looper function:loop category=threadbase
module:android.os.Handler function:dispatchMessage category=threadbase
module:android.os.Handler function:handleCallback category=threadbase
module:android.app.ActivityThread* function:handleMessage category=threadbase
module:java.lang.reflect.* category=indirection
module:java.lang.Class function:getMethod category=indirection
module:androidx.work.impl.utils.ForceStopRunnable category=indirection
module:cn.gundam.sdk.* category=telemetry
module:com.lenovo.payplus.analytics.* category=telemetry
package:"**/libBugly.so" category=telemetry
module:java.lang.System function:loadLibrary category=load
module:java.lang.Runtime function:loadLibrary* category=load
category:system -app
category:threadbase -group v-group
category:telemetry -group
category:indirection -group
category:internals -group
category:threadbase v-group -group
[ !category:system ] | category:system | [ !category:system ] category=indirection
[ category:system ]     | category:system  category=internals
[ category:std ]        | category:system  category=internals
[ category:std ]        | category:std     category=internals
[ category:ui ]         | category:ui      category=internals
[ category:ui ]         | category:system  category=internals
[ category:internals ]  | category:system  category=internals
[ category:internals ]  | category:ui      category=internals
[ category:load ]       | category:system  category=internals
[ category:load ]       | category:load    category=internals
path:**/vendor/**        -app
path:**/site-packages/** -app
path:**/dist-packages/** -app
path:**/node_modules/** -app
module:unpkg/** -app
path:**https://unpkg.com/** -app
path:**https://cdnjs.cloudflare.com/** -app
path:**https://cdn.jsdelivr.net/** -app
path:**https://esm.run/** -app
family:javascript function:reportError ^-app -app
family:javascript stack.abs_path:webpack:** +app
family:javascript stack.abs_path:webpack:** stack.filename:~/*** -app
family:javascript stack.abs_path:webpack:** stack.filename:**/node_modules/** -app
family:javascript stack.abs_path:app:** +app
family:javascript stack.abs_path:app:** stack.filename:**/node_modules/** -app
module:@babel/** -app -group
module:core-js/** -app -group
module:regenerator-runtime/** -app -group
module:tslib/** -app -group
family:javascript function:_callSuper -app -group
function:runMicrotasks -app -group
function:queueMicrotask -app -group
function:processTicksAndRejections -app -group
function:runNextTicks -app -group
function:nextTick -app -group
path:**/go/pkg/mod/** -app
module:akka.* category=framework
module:com.fasterxml.* category=framework
module:com.microsoft.* category=framework
module:com.sun.* category=framework
module:feign.* category=framework
module:io.opentelemetry.* category=framework
module:io.sentry.* category=framework -group
module:jdk.* category=framework
module:oauth.* category=framework
module:org.apache.* category=framework
module:org.glassfish.* category=framework
module:org.jboss.* category=framework
module:org.jdesktop.* category=framework
module:org.postgresql.* category=framework
module:org.springframework.* category=framework
module:org.web3j.* category=framework
module:reactor.core.* category=framework
module:scala.* category=framework
module:sun.* category=framework
category:framework -app
module:kotlin.* -app
module:kotlinx.* -app
module:io.ktor.* -app
module:io.netty.* -app
module:newrelic -app -group
path:**/*newrelic*/** -app -group
path:**/*LogRocket*/** -app -group
`;

export type Family = 'javascript' | 'native' | 'other';

/** A frame as the rules see it: Sentry's `create_match_frame`. */
export interface MatchFrame {
  family: Family;
  /** The function, or "<unknown>". */
  function: string;
  module?: string;
  /** Lower-cased, with `/` separators. */
  package?: string;
  /** `abs_path`, else `filename`: lower-cased, with `/` separators. */
  path?: string;
  /** `filename`: lower-cased, with `/` separators. */
  filename?: string;
  category?: string;
  /** The frame's `in_app`: undefined until the SDK or a rule says. */
  inApp?: boolean;
}

type Field = 'module' | 'function' | 'category' | 'path' | 'package' | 'filename';

type Matcher =
  | { kind: 'field'; field: Field; pattern: RegExp; pathLike: boolean }
  | { kind: 'family'; families: Set<string> }
  | { kind: 'app'; expected: boolean };

interface FrameMatcher {
  matcher: Matcher;
  negated: boolean;
  /** -1: the caller (the frame before), 1: the callee (the frame after), 0: the frame. */
  offset: -1 | 0 | 1;
}

interface FlagAction {
  flag: boolean;
  type: 'app' | 'group';
  range?: 'up' | 'down';
}

interface Rule {
  matchers: FrameMatcher[];
  flags: FlagAction[];
  category?: string;
}

/** Parsed on first use (the module's constants below must exist first), once per process. */
function ruleSets(): { classifiers: Rule[]; contributions: Rule[] } {
  return processShared('grouping-rules', () => {
    const rules = parseRules(RULES);
    return {
      classifiers: rules.filter(
        (rule) => rule.category || rule.flags.some((f) => f.type === 'app'),
      ),
      contributions: rules.filter((rule) => rule.flags.some((f) => f.type === 'group')),
    };
  });
}

/**
 * The rules' `+app`/`-app` and `category=` on the frames of one stack trace, in place: Sentry's
 * `apply_category_and_updated_in_app_to_frames`.
 */
export function classifyFrames(frames: MatchFrame[]): void {
  const matching: number[] = [];
  for (const rule of ruleSets().classifiers) {
    for (let idx = 0; idx < frames.length; idx++)
      if (matchesFrame(rule, frames, idx)) matching.push(idx);
    for (const idx of matching) {
      for (const action of rule.flags) {
        if (action.type !== 'app') continue;
        for (const frame of inRange(frames, idx, action.range)) frame.inApp = action.flag;
      }
      if (rule.category !== undefined) (frames[idx] as MatchFrame).category = rule.category;
    }
    matching.length = 0;
  }
}

/**
 * The rules' `+group`/`-group` on whether each frame counts, in place (`contributes[i]` is frame
 * i's): the Rust engine's `update_frame_components_contributions`, after classification.
 */
export function applyContributionRules(
  frames: readonly MatchFrame[],
  contributes: boolean[],
): void {
  for (const rule of ruleSets().contributions) {
    for (let idx = 0; idx < frames.length; idx++) {
      if (!matchesFrame(rule, frames, idx)) continue;
      for (const action of rule.flags) {
        if (action.type !== 'group') continue;
        const [from, to] = rangeBounds(frames.length, idx, action.range);
        for (let i = from; i < to; i++) contributes[i] = action.flag;
      }
    }
  }
}

function matchesFrame(rule: Rule, frames: readonly MatchFrame[], idx: number): boolean {
  for (const { matcher, negated, offset } of rule.matchers) {
    const frame = frames[idx + offset];
    // A caller or callee that is not there matches nothing, negated or not.
    if (!frame) return false;
    if (matches(matcher, frame) === negated) return false;
  }
  return true;
}

function matches(matcher: Matcher, frame: MatchFrame): boolean {
  switch (matcher.kind) {
    case 'family':
      return matcher.families.has(frame.family);
    case 'app':
      return (frame.inApp ?? false) === matcher.expected;
    case 'field': {
      const value = frame[matcher.field];
      if (value === undefined) return false;
      if (matcher.pattern.test(value)) return true;
      return matcher.pathLike && !value.startsWith('/') && matcher.pattern.test(`/${value}`);
    }
  }
}

function rangeBounds(length: number, idx: number, range: FlagAction['range']): [number, number] {
  if (range === 'up') return [idx + 1, length];
  if (range === 'down') return [0, idx];
  return [idx, idx + 1];
}

function inRange(frames: MatchFrame[], idx: number, range: FlagAction['range']): MatchFrame[] {
  const [from, to] = rangeBounds(frames.length, idx, range);
  return frames.slice(from, to);
}

// ---------------------------------------------------------------------------------------------
// The rules' text, read once at load

const FIELDS: Record<string, { field: Field; pathLike: boolean }> = {
  module: { field: 'module', pathLike: false },
  'stack.module': { field: 'module', pathLike: false },
  function: { field: 'function', pathLike: false },
  'stack.function': { field: 'function', pathLike: false },
  category: { field: 'category', pathLike: false },
  path: { field: 'path', pathLike: true },
  'stack.abs_path': { field: 'path', pathLike: true },
  package: { field: 'package', pathLike: true },
  'stack.package': { field: 'package', pathLike: true },
  'stack.filename': { field: 'filename', pathLike: true },
};

function parseRules(text: string): Rule[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map(parseRule);
}

function parseRule(line: string): Rule {
  const rule: Rule = { matchers: [], flags: [] };
  const tokens = line.match(/\[|\]|\||"[^"]*"|[^\s[\]|"]+(?:"[^"]*")?/g) ?? [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    if (token === '[') {
      // `[ m ] |` is the caller; `| [ m ]` is the callee.
      const offset = tokens[i - 1] === '|' ? 1 : -1;
      rule.matchers.push({ ...parseMatcher(tokens[i + 1] as string), offset });
      i += 2;
      continue;
    }
    if (token === '|') continue;
    const flag = /^([v^])?([+-])(app|group)$/.exec(token);
    if (flag) {
      const range = flag[1] === '^' ? 'up' : flag[1] === 'v' ? 'down' : undefined;
      rule.flags.push({ flag: flag[2] === '+', type: flag[3] as 'app' | 'group', range });
    } else if (token.startsWith('category=')) {
      rule.category = token.slice('category='.length);
    } else {
      rule.matchers.push({ ...parseMatcher(token), offset: 0 });
    }
  }
  return rule;
}

function parseMatcher(token: string): { matcher: Matcher; negated: boolean } {
  const negated = token.startsWith('!');
  const body = negated ? token.slice(1) : token;
  const colon = body.indexOf(':');
  const key = body.slice(0, colon);
  let argument = body.slice(colon + 1);
  if (argument.startsWith('"') && argument.endsWith('"')) argument = argument.slice(1, -1);
  if (key === 'family')
    return { negated, matcher: { kind: 'family', families: new Set(argument.split(',')) } };
  if (key === 'app')
    return { negated, matcher: { kind: 'app', expected: ['1', 'true', 'yes'].includes(argument) } };
  const field = FIELDS[key];
  if (!field) throw new Error(`unknown stack trace rule matcher: ${key}`);
  const pattern = globToRegExp(argument, field.pathLike);
  return { negated, matcher: { kind: 'field', ...field, pattern } };
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/g;

/**
 * A glob as the `globset` crate reads it (case-insensitive; `literal_separator` for paths):
 * `*` and `?` stop at `/` in paths; `**` is recursive only as a whole path component
 * (`**` + `/`, `/` + `**`, `/` + `**` + `/`), and elsewhere two `*`.
 */
export function globToRegExp(glob: string, pathLike: boolean): RegExp {
  const pattern = pathLike ? glob.replace(/\\/g, '/') : glob;
  const star = pathLike ? '[^/]*' : '[^]*';
  let regex = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === '?') {
      regex += pathLike ? '[^/]' : '[^]';
    } else if (char !== '*') {
      regex += char.replace(REGEX_SPECIAL, '\\$&');
    } else if (pattern[i + 1] !== '*') {
      regex += star;
    } else {
      const after = pattern[i + 2];
      if (i === 0 && after === undefined) {
        regex += '[^]*';
        i += 1;
      } else if (i === 0 && after === '/') {
        regex += '(?:/?|[^]*/)';
        i += 2;
      } else if (i > 0 && pattern[i - 1] === '/' && after === undefined) {
        regex = `${regex.slice(0, -1)}/[^]*`;
        i += 1;
      } else if (i > 0 && pattern[i - 1] === '/' && after === '/') {
        regex = `${regex.slice(0, -1)}(?:/|/[^]*/)`;
        i += 2;
      } else {
        regex += star + star;
        i += 1;
      }
    }
  }
  return new RegExp(`^${regex}$`, 'i');
}
