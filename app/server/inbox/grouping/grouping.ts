/**
 * Sentry's default grouping, so an event lands in the same issue here as it would in Sentry: the
 * `newstyle:2023-01-11` config (Sentry's default), its stack trace rules and its built-in
 * fingerprint rules, hashed exactly as Sentry hashes. Also the issue's title and culprit. Pure:
 * an event object in, hashes out; it runs per event, off the main thread, in linear time.
 *
 * What Sentry does, and this module with it (getsentry/sentry src/sentry/grouping/, FSL; each
 * function below names the Sentry function it follows):
 * - Relay first: a frame without `filename` gets its `abs_path` (the URL's path for a URL); an
 *   exception without a type but a value "Type: text" is split; `logentry` is formatted (see
 *   ./message.ts).
 * - Then `normalize_stacktraces_for_grouping`: for JavaScript events a filename loses its
 *   query string; the stack trace rules (./enhancements.ts) set `in_app` and categories; a frame
 *   still without `in_app` is not in-app.
 * - The fingerprint: the event's `fingerprint` (missing means `["{{ default }}"]`), unless one
 *   of Sentry's built-in rules matches (JavaScript chunk-load and hydration errors). A
 *   fingerprint without `{{ default }}` is the hash on its own; with it, `{{ default }}` is
 *   replaced by the default grouping's *values* (not its hash), then everything is hashed.
 *   `{{ type }}`, `{{ message }}`, `{{ function }}`, `{{ transaction }}`, `{{ tags.x }}`… are
 *   resolved as Sentry resolves them; an unknown variable stays as written.
 * - The default grouping, by the first of these that contributes: the exceptions (all of the
 *   chain, each its stack, its type, then its value, the value only when no stack counts;
 *   exception groups reduced as Sentry reduces them), the crashed/current thread's stack, the
 *   event's own stack, and last the message, parameterised and cut to two lines.
 * - Two variants, app (in-app frames only) and system (every frame). A frame counts unless it
 *   repeats the one before it (recursion), a rule says `-group`, or it is a low-quality
 *   JavaScript frame (`eval`, `<anonymous>`, `[native code]`). It contributes its module, else
 *   its file's lower-cased basename (not when `abs_path` is a URL); its function's last
 *   dot-segment (not when a source map resolved it and the context line counts); and, for
 *   JavaScript, Node, Python, PHP and Ruby, its context line with whitespace collapsed (not
 *   past 120 characters). Line and column numbers never count.
 * - Hashes are md5 of the contributing values, concatenated (`hash_from_values`); the app hash
 *   comes first, a system hash equal to it is not repeated, and an event with nothing to group
 *   by gets md5 of nothing, as in Sentry.
 * - Sentry's quirks, kept because they decide hashes: when no stack counts in either variant,
 *   the app variant still groups by type and value; an exception without a stack exists only in
 *   the app variant, so a chain's system hash leaves it out; a lone JavaScript frame without a
 *   function is dropped when its path *is* a URL (an inverted check this config preserves); a
 *   frame keeps counting when only its function stopped counting after it was built.
 *
 * What is left out, and why:
 * - Native (C, C++, Objective-C, Swift) function trimming and their stack trace rules, NSError
 *   codes, CSP/HPKP/Expect-CT reports and Django template frames: no SDK of this app sends them,
 *   and Sentry groups native events after symbolication we cannot do.
 * - Project-specific stack trace or fingerprint rules: the inbox has no project settings.
 * - `trim_function_name` for C#'s raw function names (same reason as native).
 * - Exception groups are compared by their components' values and contributions, where Sentry
 *   compares their Python reprs, hints included: the same except in hints nobody reads.
 *
 * Source maps: Sentry uses a frame's context line instead of its function when its JavaScript
 * processor resolved the frame with a map; it marks the frame with `data.sourcemap`. The inbox
 * resolves maps itself, so it must do the same (set `context_line` and `data.sourcemap`) before
 * grouping an event, or the function is used.
 */
import { createHash } from 'node:crypto';
import { normaliseLogentry } from '../logentry';
import {
  applyContributionRules,
  classifyFrames,
  type Family,
  type MatchFrame,
} from './enhancements';
import {
  collapseWhitespace,
  normalizeMessageForGrouping,
  PY_SPACE,
  pyStrip,
  splitLines,
} from './message';

export const GROUPING_CONFIG = 'newstyle:2023-01-11';

export type VariantName =
  | 'app'
  | 'system'
  | 'default'
  | 'custom_fingerprint'
  | 'built_in_fingerprint'
  | 'checksum'
  | 'hashed_checksum'
  | 'fallback';

export interface GroupingVariant {
  /** md5 hex of `values`, or null when the variant does not contribute. */
  hash: string | null;
  contributes: boolean;
  /** What was hashed, in order (the fingerprint itself for a fingerprint variant). */
  values: string[];
}

export interface GroupingResult {
  config: typeof GROUPING_CONFIG;
  /** The event's hashes, app first when there is one, without repeats. An issue owns them. */
  hashes: string[];
  /** Sentry's variants, in Sentry's order; `app` and `system` unless a message or fingerprint decides. */
  variants: Partial<Record<VariantName, GroupingVariant>>;
  /** The fingerprint, variables resolved, when it is not the default one. */
  fingerprint?: string[];
  /** True when the fingerprint came from one of Sentry's built-in rules. */
  builtInFingerprint?: true;
  /** The issue's title, as Sentry computes it for this event. */
  title: string;
  /** The issue's culprit, as Sentry computes it for this event. */
  culprit: string;
}

/** Sentry's grouping of one event (the JSON payload of an `event` envelope item). */
export function groupEvent(input: unknown): GroupingResult {
  const event = readEvent(input);
  normalizeStacktracesForGrouping(event);
  const { fingerprint, builtIn } = serverFingerprint(event);
  const variants = variantsFor(event, fingerprint, builtIn);
  const result: GroupingResult = {
    config: GROUPING_CONFIG,
    hashes: hashesOf(variants),
    variants,
    title: titleOf(event),
    culprit: culpritOf(event),
  };
  if (fingerprintType(fingerprint) !== 'default')
    result.fingerprint = resolveFingerprint(fingerprint, event);
  if (builtIn) result.builtInFingerprint = true;
  return result;
}

/** The issue's title Sentry would give this event: `Type: value`, or the message. */
export function issueTitle(input: unknown): string {
  const event = readEvent(input);
  normalizeStacktracesForGrouping(event);
  variantsFor(event, ['{{ default }}'], false); // exception groups choose the main exception
  return titleOf(event);
}

/** The issue's culprit Sentry would give this event: the top in-app frame, else the URL. */
export function issueCulprit(input: unknown): string {
  const event = readEvent(input);
  normalizeStacktracesForGrouping(event);
  return culpritOf(event);
}

// ---------------------------------------------------------------------------------------------
// The event, as Relay leaves it for grouping

type Json = Record<string, unknown>;

interface Frame {
  absPath?: string;
  filename?: string;
  module?: string;
  function?: string;
  rawFunction?: string;
  package?: string;
  platform?: string;
  contextLine?: string;
  lineno?: number;
  colno?: number;
  /** A source map resolved the frame (Sentry's `data.sourcemap`). */
  sourcemap: boolean;
  inApp: boolean;
  /** What the stack trace rules see and change. */
  match: MatchFrame;
}

interface Mechanism {
  type?: string;
  source?: string;
  synthetic: boolean;
  isExceptionGroup: boolean;
  exceptionId?: number;
  parentId?: number;
}

interface ExceptionValue {
  type?: string;
  value?: string;
  module?: string;
  mechanism?: Mechanism;
  /** Undefined when the exception has no stack trace. */
  frames?: Frame[];
}

interface Thread {
  crashed: boolean;
  current: boolean;
  frames?: Frame[];
}

interface EventData {
  platform: string;
  exceptions: ExceptionValue[];
  /** The event's own stack trace (a message with `attachStacktrace`). */
  frames?: Frame[];
  threads?: Thread[];
  logentry?: Logentry;
  fingerprint: string[];
  checksum?: string;
  transaction?: string;
  level: string;
  logger?: string;
  tags: Array<[string, string]>;
  culprit?: string;
  requestUrl?: string;
  sdkVersion?: string;
  /** Set by the exception strategy when a group or a React cause says which is the main one. */
  mainExceptionId?: number;
}

function readEvent(input: unknown): EventData {
  const event = isRecord(input) ? input : {};
  const platform = text(event.platform) ?? 'other';
  const data: EventData = {
    platform,
    exceptions: listOf(event.exception).flatMap((value) => readException(value, platform)),
    fingerprint: readFingerprint(event.fingerprint),
    level: text(event.level) ?? 'error',
    tags: readTags(event.tags),
  };
  const frames = readFrames(event.stacktrace, platform);
  if (frames) data.frames = frames;
  const threads = listOf(event.threads);
  if (threads.length > 0) {
    data.threads = threads.map((thread) => {
      const read: Thread = { crashed: Boolean(thread.crashed), current: Boolean(thread.current) };
      const threadFrames = readFrames(thread.stacktrace, platform);
      if (threadFrames) read.frames = threadFrames;
      return read;
    });
  }
  const logentry = logentryOf(event.logentry, event.message);
  if (logentry) data.logentry = logentry;
  data.checksum = text(event.checksum);
  data.transaction = text(event.transaction);
  data.logger = text(event.logger);
  data.culprit = text(event.culprit);
  data.requestUrl = isRecord(event.request) ? text(event.request.url) : undefined;
  data.sdkVersion = isRecord(event.sdk) ? text(event.sdk.version) : undefined;
  return data;
}

/** `exception.values`, or a bare list; `threads.values` likewise. Only objects. */
function listOf(container: unknown): Json[] {
  const values = isRecord(container) ? container.values : container;
  return Array.isArray(values) ? values.filter(isRecord) : [];
}

/** Relay's `normalize_exception`: "Type: text" split when there is no type; empty ones dropped. */
function readException(value: Json, platform: string): ExceptionValue[] {
  let type = text(value.type);
  let message = lenientString(value.value);
  if (!type && message !== undefined) {
    const split = /^([\p{L}\p{M}\p{Nd}\p{Pc}]+):(.*)$/u.exec(message);
    if (split) {
      type = split[1];
      message = (split[2] as string).trim();
    }
  }
  if (!type && !message) return [];
  const exception: ExceptionValue = {};
  if (type !== undefined) exception.type = type;
  if (message !== undefined) exception.value = message;
  const module = text(value.module);
  if (module !== undefined) exception.module = module;
  if (isRecord(value.mechanism)) exception.mechanism = readMechanism(value.mechanism);
  const frames = readFrames(value.stacktrace, platform);
  if (frames) exception.frames = frames;
  return [exception];
}

function readMechanism(mechanism: Json): Mechanism {
  const read: Mechanism = {
    synthetic: mechanism.synthetic === true,
    isExceptionGroup: mechanism.is_exception_group === true,
  };
  const type = text(mechanism.type);
  if (type !== undefined) read.type = type;
  const source = text(mechanism.source);
  if (source !== undefined) read.source = source;
  if (Number.isInteger(mechanism.exception_id)) read.exceptionId = mechanism.exception_id as number;
  if (Number.isInteger(mechanism.parent_id)) read.parentId = mechanism.parent_id as number;
  return read;
}

/** A stack trace's frames, oldest first; undefined when there is no stack trace. */
function readFrames(stacktrace: unknown, platform: string): Frame[] | undefined {
  if (!isRecord(stacktrace) || !Array.isArray(stacktrace.frames)) return undefined;
  const frames = stacktrace.frames.filter(isRecord).map((frame) => readFrame(frame, platform));
  return frames.length > 0 ? frames : undefined;
}

function readFrame(raw: Json, eventPlatform: string): Frame {
  let absPath = text(raw.abs_path, true);
  let filename = text(raw.filename, true);
  // Relay's `process_non_raw_frame`.
  if (!absPath) {
    absPath = filename;
    filename = undefined;
  }
  if (!filename && absPath !== undefined) filename = urlPath(absPath) ?? absPath;
  const platform = text(raw.platform);
  const frame: Frame = {
    absPath,
    filename,
    module: text(raw.module, true),
    function: text(raw.function, true),
    rawFunction: text(raw.raw_function, true),
    package: text(raw.package, true),
    platform,
    contextLine: text(raw.context_line, true),
    sourcemap: isRecord(raw.data) && typeof raw.data.sourcemap === 'string',
    inApp: raw.in_app === true,
    match: { family: familyOf(platform ?? eventPlatform), function: '<unknown>' },
  };
  if (Number.isInteger(raw.lineno)) frame.lineno = raw.lineno as number;
  if (Number.isInteger(raw.colno)) frame.colno = raw.colno as number;
  if (typeof raw.in_app === 'boolean') frame.match.inApp = raw.in_app;
  return frame;
}

/** A URL's path, when `abs_path` is a URL with one (Relay's `is_url` and `Url::parse`). */
function urlPath(absPath: string): string | undefined {
  if (!/^(?:file|https?|applewebdata):/.test(absPath)) return undefined;
  try {
    const path = new URL(absPath).pathname;
    return path && path !== '/' ? path : undefined;
  } catch {
    return undefined;
  }
}

function readFingerprint(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  // Relay turns numbers and booleans into strings and drops other entries.
  return value.flatMap((entry) =>
    typeof entry === 'string'
      ? [entry]
      : typeof entry === 'number'
        ? [String(entry)]
        : typeof entry === 'boolean'
          ? [entry ? 'True' : 'False']
          : [],
  );
}

function readTags(tags: unknown): Array<[string, string]> {
  const pairs = Array.isArray(tags) ? tags : isRecord(tags) ? Object.entries(tags) : [];
  const result: Array<[string, string]> = [];
  for (const pair of pairs) {
    if (!Array.isArray(pair) || typeof pair[0] !== 'string') continue;
    const value = pair[1];
    if (typeof value === 'string') result.push([pair[0], value]);
    else if (typeof value === 'number' || typeof value === 'boolean')
      result.push([pair[0], String(value)]);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// normalize_stacktraces_for_grouping (sentry/stacktraces/processing.py)

function allStacks(event: EventData): Frame[][] {
  const stacks: Frame[][] = [];
  for (const exception of event.exceptions) if (exception.frames) stacks.push(exception.frames);
  if (event.frames) stacks.push(event.frames);
  for (const thread of event.threads ?? []) if (thread.frames) stacks.push(thread.frames);
  return stacks;
}

function normalizeStacktracesForGrouping(event: EventData): void {
  for (const frames of allStacks(event)) {
    for (const frame of frames) {
      if (event.platform === 'javascript' && frame.filename)
        frame.filename = withoutQuery(frame.filename);
      const match = frame.match;
      match.function = frame.function ?? '<unknown>';
      if (frame.module !== undefined) match.module = frame.module;
      if (frame.package !== undefined) match.package = pathValue(frame.package);
      const path = frame.absPath || frame.filename;
      if (path !== undefined) match.path = pathValue(path);
      if (frame.filename !== undefined) match.filename = pathValue(frame.filename);
    }
    classifyFrames(frames.map((frame) => frame.match));
    for (const frame of frames) frame.inApp = frame.match.inApp ?? false;
  }
}

/** `filename.replace("?" + query, "")`, the query as Python's `urlparse` finds it. */
function withoutQuery(filename: string): string {
  const beforeFragment = filename.split('#', 1)[0] as string;
  const at = beforeFragment.indexOf('?');
  const query = at >= 0 ? beforeFragment.slice(at + 1) : '';
  return query ? filename.split(`?${query}`).join('') : filename;
}

function pathValue(value: string): string {
  return value.replace(/\\/g, '/').toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// Components (sentry/grouping/component.py)

interface Component {
  id: string;
  /** Set when built, from the values then; later changes to children do not change it. */
  contributes: boolean;
  values: Array<string | Component>;
}

function component(
  id: string,
  values: Array<string | Component>,
  contributes?: boolean,
): Component {
  return {
    id,
    values,
    contributes:
      contributes ?? values.some((value) => typeof value === 'string' || value.contributes),
  };
}

/** `iter_values`: the strings under contributing components, in order. */
function valuesOf(root: Component, out: string[] = []): string[] {
  if (!root.contributes) return out;
  for (const value of root.values) {
    if (typeof value === 'string') out.push(value);
    else valuesOf(value, out);
  }
  return out;
}

function hashOf(root: Component): string | null {
  return root.contributes ? hashFromValues(valuesOf(root)) : null;
}

/**
 * Sentry's `hash_from_values`: md5 over each value's UTF-8, one after the other. Python encodes a
 * lone surrogate as "?" (`errors="replace"`), where Node would write U+FFFD.
 */
export function hashFromValues(values: readonly string[]): string {
  const hash = createHash('md5');
  for (const value of values) {
    hash.update(value.replace(LONE_SURROGATE, '?'), 'utf8');
  }
  return hash.digest('hex');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

type ByVariant = Map<string, Component>;

// ---------------------------------------------------------------------------------------------
// Frames and stack traces (sentry/grouping/strategies/newstyle.py)

const CONTEXT_LINE_PLATFORMS = new Set(['javascript', 'node', 'python', 'php', 'ruby']);
const JAVA_ASSIST = /(\$\$_javassist)(?:_seam)?(?:_[0-9]+)?/gu;
const JAVA_MODULE_CLEANUPS: ReadonlyArray<RegExp> = [
  /(sun\.reflect\.Generated(?:Serialization)?ConstructorAccessor)\p{Nd}+/gu,
  /(\$\$[\p{L}\p{N}_]+?CGLIB\$\$)[a-fA-F0-9]+(_[0-9]+)?/gu,
  JAVA_ASSIST,
  /(\$fn__)\p{Nd}+/gu,
  /(\$\$?EnhancerBy[\p{L}\p{N}_]+?\$?\$)[a-fA-F0-9]+(_[0-9]+)?/gu,
  /(\$\$?FastClassBy[\p{L}\p{N}_]+?\$?\$)[a-fA-F0-9]+(_[0-9]+)?/gu,
  /(\$\$?HibernateProxy\$?\$)[\p{L}\p{N}_]+(_[0-9]+)?/gu,
];
const LOW_QUALITY_PATHS = new Set(['[native code]', 'native code', 'eval code', '<anonymous>']);
const UNKNOWN_JS_FUNCTIONS = new Set([
  '?',
  '<anonymous function>',
  '<anonymous>',
  'Anonymous function',
]);

function familyOf(platform: string | undefined): Family {
  if (platform === 'javascript' || platform === 'node') return 'javascript';
  if (platform && ['objc', 'cocoa', 'swift', 'native', 'c'].includes(platform)) return 'native';
  return 'other';
}

/** Sentry's `has_url_origin`. */
function hasUrlOrigin(path: string | undefined, filesCountAsUrls: boolean): boolean {
  if (!path) return false;
  if (/^(?:https?|applewebdata|blob):/.test(path)) return true;
  return path.startsWith('file:') && filesCountAsUrls;
}

function filenameComponent(frame: Frame, platform: string | undefined): Component {
  if (frame.filename === undefined) return component('filename', []);
  let name = (frame.filename.split(/[/\\]/).pop() as string).toLowerCase();
  if (hasUrlOrigin(frame.absPath, false) || name === '<anonymous>' || name === '[native code]') {
    return component('filename', [name], false);
  }
  if (platform === 'java') name = name.replace(JAVA_ASSIST, '$1<auto>');
  return component('filename', [name]);
}

function moduleComponent(frame: Frame, platform: string | undefined): Component {
  let module = frame.module;
  if (module === undefined) return component('module', []);
  const result = component('module', [module]);
  if (platform === 'javascript') {
    if (module.includes('/') && frame.absPath?.endsWith(module)) result.contributes = false;
  } else if (platform === 'java') {
    if (module.includes('$$Lambda$')) result.contributes = false;
    // As in Sentry, new values make the module count again, even a lambda's.
    if (module.startsWith('sun.reflect.GeneratedMethodAccessor')) {
      return component('module', ['sun.reflect.GeneratedMethodAccessor']);
    }
    if (module.startsWith('jdk.internal.reflect.GeneratedMethodAccessor')) {
      return component('module', ['jdk.internal.reflect.GeneratedMethodAccessor']);
    }
    const original = module;
    for (const cleanup of JAVA_MODULE_CLEANUPS) module = module.replace(cleanup, '$1<auto>');
    if (module !== original) return component('module', [module]);
  }
  return result;
}

function contextLineComponent(frame: Frame, platform: string | undefined): Component | undefined {
  const raw = frame.contextLine;
  if (!raw || !platform || !CONTEXT_LINE_PLATFORMS.has(platform)) return undefined;
  const line = collapseWhitespace(raw);
  if (!line) return component('context-line', []);
  if (codePoints(raw) > 120) return component('context-line', [line], false);
  if (familyOf(platform) === 'javascript' && !frame.function && hasUrlOrigin(frame.absPath, true)) {
    return component('context-line', [line], false);
  }
  return component('context-line', [line]);
}

function functionComponent(
  frame: Frame,
  platform: string | undefined,
  contextLineCounts: boolean,
): Component {
  const func =
    platform === 'csharp'
      ? frame.rawFunction || frame.function
      : frame.function || frame.rawFunction;
  if (!func) return component('function', []);
  const result = component('function', [func]);
  const family = familyOf(platform);
  if (platform === 'ruby') {
    if (func.startsWith('block ')) return component('function', ['block']);
    const trimmed = func.replace(/__\p{Nd}{4,}_\p{Nd}{4,}$/u, '');
    if (trimmed !== func) return component('function', [trimmed]);
  } else if (platform === 'php') {
    if (func.startsWith('[Anonymous') || func.startsWith('class@anonymous\x00'))
      result.contributes = false;
    if (func.startsWith('class@anonymous')) {
      const method = func.split('::').pop() as string;
      if (method !== func) return component('function', [method]);
    }
  } else if (platform === 'java') {
    if (func.startsWith('lambda$')) result.contributes = false;
  } else if (family === 'native') {
    if (func === '<redacted>' || func === '<unknown>') result.contributes = false;
  } else if (family === 'javascript') {
    const last = func.slice(func.lastIndexOf('.') + 1);
    const trimmed = last === func ? result : component('function', [last]);
    if (frame.sourcemap && contextLineCounts) trimmed.contributes = false;
    return trimmed;
  }
  return result;
}

/** Sentry's `frame` strategy: one frame's component. */
function frameComponent(frame: Frame, eventPlatform: string): Component {
  const platform = frame.platform ?? eventPlatform;
  const filename = filenameComponent(frame, platform);
  const module = moduleComponent(frame, platform);
  if (module.contributes && filename.contributes) filename.contributes = false;
  const contextLine = contextLineComponent(frame, platform);
  const func = functionComponent(frame, platform, contextLine?.contributes ?? false);
  const values = contextLine ? [module, filename, func, contextLine] : [module, filename, func];
  const result = component('frame', values);
  if (familyOf(platform) === 'javascript') {
    // After the frame is built, as in Sentry: a frame keeps counting with a function that no
    // longer does.
    const name = (frame.rawFunction || frame.function || '').split('.').pop() as string;
    if (!name || UNKNOWN_JS_FUNCTIONS.has(name) || name.endsWith('/<')) func.contributes = false;
    if (name === 'eval' || (frame.absPath !== undefined && LOW_QUALITY_PATHS.has(frame.absPath))) {
      result.contributes = false;
    }
  }
  return result;
}

const RECURSION_FIELDS = [
  'absPath',
  'package',
  'module',
  'filename',
  'function',
  'lineno',
  'colno',
] as const;

function isRecursion(frame: Frame, previous: Frame | undefined): boolean {
  return (
    previous !== undefined && RECURSION_FIELDS.every((field) => frame[field] === previous[field])
  );
}

/** Sentry's `_single_stacktrace_variant` and the stack trace rules' `-group`. */
function stacktraceComponent(
  frames: Frame[],
  variant: 'app' | 'system',
  platform: string,
): Component {
  const components = frames.map((frame, i) => {
    const built = frameComponent(frame, platform);
    if (isRecursion(frame, frames[i - 1])) built.contributes = false;
    if (variant === 'app' && !frame.inApp) built.contributes = false;
    return built;
  });
  const only = frames[0];
  if (
    frames.length === 1 &&
    only &&
    components[0]?.contributes &&
    familyOf(only.platform ?? platform) === 'javascript' &&
    !only.function &&
    // Sentry's long-standing inversion, kept by this config: it drops the frame *with* a URL.
    hasUrlOrigin(only.absPath, true)
  ) {
    (components[0] as Component).contributes = false;
  }
  const contributes = components.map((built) => built.contributes);
  applyContributionRules(
    frames.map((frame) => frame.match),
    contributes,
  );
  components.forEach((built, i) => {
    built.contributes =
      (contributes[i] as boolean) && (variant === 'system' || (frames[i] as Frame).inApp);
  });
  return component(
    'stacktrace',
    components,
    components.some((built) => built.contributes),
  );
}

/** The `stacktrace` strategy: `!app` (which wins a tie) and `system`. */
function stacktraceVariants(frames: Frame[] | undefined, platform: string): ByVariant {
  if (!frames) return new Map([['!app', component('stacktrace', [], false)]]);
  return new Map([
    ['!app', stacktraceComponent(frames, 'app', platform)],
    ['system', stacktraceComponent(frames, 'system', platform)],
  ]);
}

// ---------------------------------------------------------------------------------------------
// Exceptions

/** Sentry's `single_exception`, with this config's order: stack trace, type, value. */
function exceptionVariants(exception: ExceptionValue, platform: string): ByVariant {
  const type = component('type', exception.type ? [exception.type] : []);
  if (exception.mechanism?.synthetic) type.contributes = false;
  const result: ByVariant = new Map();
  for (const [name, stacktrace] of stacktraceVariants(exception.frames, platform)) {
    const normalized =
      exception.value === undefined ? '' : normalizeMessageForGrouping(exception.value);
    const value = component('value', normalized ? [normalized] : []);
    if (stacktrace.contributes && value.contributes) value.contributes = false;
    result.set(name, component('exception', [stacktrace, type, value]));
  }
  return result;
}

/** Sentry's `chained_exception`: every exception of the chain, exception groups reduced. */
function chainedExceptionVariants(event: EventData): ByVariant {
  const all = event.exceptions;
  const perException = all.map((exception) => exceptionVariants(exception, event.platform));
  const kept = filterExceptionGroups(event, perException);
  if (kept.length === 1) return perException[kept[0] as number] as ByVariant;
  overrideMainException(
    event,
    kept.map((i) => all[i] as ExceptionValue),
  );
  const byVariant = new Map<string, Component[]>();
  for (const i of kept) {
    for (const [name, built] of perException[i] as ByVariant) {
      byVariant.set(name, [...(byVariant.get(name) ?? []), built]);
    }
  }
  return new Map(
    [...byVariant].map(([name, list]) => [name, component('chained-exception', list)]),
  );
}

/**
 * Sentry's `filter_exceptions_for_exception_groups` (RFC 0079): the indices of the exceptions
 * that count. One distinct top-level exception under the groups: it and its first children;
 * several: one of each and the root group.
 */
function filterExceptionGroups(event: EventData, perException: ByVariant[]): number[] {
  const exceptions = event.exceptions;
  const everything = exceptions.map((_, i) => i);
  if (exceptions.length <= 1) return everything;
  if (event.platform === 'python' && event.sdkVersion?.startsWith('3')) return everything;
  const tree = new Map<number, { exception?: number; children: number[] }>();
  const node = (id: number) => {
    const found = tree.get(id) ?? { children: [] };
    tree.set(id, found);
    return found;
  };
  for (let i = exceptions.length - 1; i >= 0; i--) {
    const mechanism = (exceptions[i] as ExceptionValue).mechanism;
    const id = mechanism?.exceptionId;
    if (id === undefined || id === mechanism?.parentId || tree.get(id)?.exception !== undefined) {
      return everything;
    }
    node(id).exception = i;
    if (mechanism?.parentId !== undefined) node(mechanism.parentId).children.push(i);
  }
  const childrenOf = (i: number) =>
    tree.get((exceptions[i] as ExceptionValue).mechanism?.exceptionId as number)?.children ?? [];
  const root = tree.get(0)?.exception;
  if (root === undefined) return everything;
  // Sentry recurses and, on a cycle, falls back to every exception: so do we, without recursing.
  const topLevel: number[] = [];
  const stack = [root];
  let steps = 0;
  while (stack.length > 0) {
    if (++steps > exceptions.length) return everything;
    const i = stack.pop() as number;
    if ((exceptions[i] as ExceptionValue).mechanism?.isExceptionGroup)
      stack.push(...[...childrenOf(i)].reverse());
    else topLevel.push(i);
  }
  if (topLevel.length === 0) return everything;
  const typeKey = (i: number) => String((exceptions[i] as ExceptionValue).type ?? 'None');
  topLevel.sort((a, b) => (typeKey(a) < typeKey(b) ? 1 : typeKey(a) > typeKey(b) ? -1 : 0));
  const distinct: number[] = [];
  let previousKey: string | undefined;
  for (const i of topLevel) {
    const key = JSON.stringify([...(perException[i] as ByVariant).values()]);
    if (key !== previousKey) distinct.push(i);
    previousKey = key;
  }
  if (distinct.length === 1) {
    const main = distinct[0] as number;
    event.mainExceptionId = (exceptions[main] as ExceptionValue).mechanism?.exceptionId;
    const path: number[] = [];
    for (let i: number | undefined = main; i !== undefined; i = childrenOf(i)[0]) {
      if (path.length >= exceptions.length) return everything;
      path.push(i);
    }
    return path;
  }
  return [...distinct, root];
}

const REACT_ERRORS_WITH_CAUSE = [
  'There was an error during concurrent rendering but React was able to recover by instead synchronously rendering the entire root.',
  'There was an error while hydrating but React was able to recover by instead client rendering from the nearest Suspense boundary.',
];
const RXJAVA_WRAPPERS = [
  'OnErrorNotImplementedException',
  'CompositeException',
  'UndeliverableException',
];

/** Sentry's `_maybe_override_main_exception_id`: React's recovered errors and RxJava wrappers. */
function overrideMainException(event: EventData, exceptions: ExceptionValue[]): void {
  const first = exceptions[0];
  const last = exceptions[exceptions.length - 1];
  let main: number | undefined;
  if (
    first?.type === 'Error' &&
    REACT_ERRORS_WITH_CAUSE.includes(first.value ?? '') &&
    last?.mechanism?.source === 'cause'
  ) {
    main = last.mechanism.exceptionId;
  }
  if (main === undefined && exceptions.length >= 2) {
    const wrapper = exceptions.find(
      (e) =>
        e.module === 'io.reactivex.rxjava3.exceptions' &&
        RXJAVA_WRAPPERS.includes(e.type ?? '') &&
        e.mechanism?.type === 'UncaughtExceptionHandler',
    )?.mechanism?.exceptionId;
    if (wrapper !== undefined) {
      main = exceptions.find(
        (e) => e.mechanism?.parentId === wrapper && e.mechanism.exceptionId !== undefined,
      )?.mechanism?.exceptionId;
    }
  }
  if (main) event.mainExceptionId = main;
}

// ---------------------------------------------------------------------------------------------
// Threads and messages

/** Sentry's `threads`: the one crashed thread, else the one current thread, else the only one. */
function threadsVariants(event: EventData): ByVariant {
  const threads = event.threads ?? [];
  for (const candidates of [
    threads.filter((t) => t.crashed),
    threads.filter((t) => t.current),
    threads,
  ]) {
    if (candidates.length !== 1) continue;
    const frames = (candidates[0] as Thread).frames;
    if (!frames) return new Map([['app', component('threads', [], false)]]);
    return new Map(
      [...stacktraceVariants(frames, event.platform)].map(([name, stack]) => [
        name,
        component('threads', [stack]),
      ]),
    );
  }
  return new Map([['app', component('threads', [], false)]]);
}

/** The template ("User %s failed") only when it differs from `formatted`, as Relay keeps them. */
interface Logentry {
  message?: string;
  formatted?: string;
}

/** Relay's logentry (../logentry.ts), its texts only; undefined when both are empty. */
function logentryOf(logentry: unknown, legacyMessage: unknown): Logentry | undefined {
  const entry = normaliseLogentry(logentry, legacyMessage);
  const read = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const message = read(entry?.message);
  const formatted = read(entry?.formatted);
  if (message === undefined && formatted === undefined) return undefined;
  return {
    ...(message !== undefined ? { message } : {}),
    ...(formatted !== undefined ? { formatted } : {}),
  };
}

function messageVariants(logentry: Logentry): ByVariant {
  const raw = logentry.message ?? logentry.formatted ?? '';
  return new Map([['default', component('message', [normalizeMessageForGrouping(raw)])]]);
}

// ---------------------------------------------------------------------------------------------
// Strategies and variants (sentry/grouping/api.py, strategies/base.py, variants.py)

/**
 * `Strategy.get_grouping_components`: the `!` variant wins over an identical other one, and a
 * variant without a counting stack trace stops counting when another has one.
 */
function finishStrategy(byVariant: ByVariant, stackStrategy: boolean): Map<string, Component> {
  const result = new Map<string, Component>();
  const priorityHashes = new Set<string>();
  for (const [name, built] of byVariant) {
    if (name.startsWith('!') && built.contributes) priorityHashes.add(hashOf(built) as string);
    result.set(name.replace(/^!/, ''), built);
  }
  for (const [name, built] of byVariant) {
    if (!name.startsWith('!') && built.contributes && priorityHashes.has(hashOf(built) as string)) {
      built.contributes = false;
    }
  }
  if (stackStrategy && result.size > 1) {
    const withStack = [...result.values()].filter(hasContributingStacktrace);
    if (withStack.length > 0) {
      for (const built of result.values())
        if (!withStack.includes(built)) built.contributes = false;
    }
  }
  return result;
}

function hasContributingStacktrace(root: Component): boolean {
  return root.values.some(
    (value) =>
      typeof value !== 'string' &&
      value.contributes &&
      (value.id === 'stacktrace' || hasContributingStacktrace(value)),
  );
}

/** `_get_variants_from_strategies`: the first strategy that contributes wins. */
function strategyVariants(event: EventData): Map<string, Component> {
  const strategies: Array<() => Map<string, Component> | undefined> = [
    () =>
      event.exceptions.length > 0
        ? finishStrategy(chainedExceptionVariants(event), true)
        : undefined,
    () => (event.threads ? finishStrategy(threadsVariants(event), true) : undefined),
    () =>
      event.frames
        ? finishStrategy(stacktraceVariants(event.frames, event.platform), true)
        : undefined,
    () => (event.logentry ? finishStrategy(messageVariants(event.logentry), false) : undefined),
  ];
  const byVariant = new Map<string, Component[]>();
  let winner: number | undefined;
  strategies.forEach((strategy, index) => {
    for (const [name, built] of strategy() ?? []) {
      byVariant.set(name, [...(byVariant.get(name) ?? []), built]);
      if (!built.contributes) continue;
      winner ??= index;
      if (winner !== index) built.contributes = false;
    }
  });
  return new Map([...byVariant].map(([name, list]) => [name, component(name, list)]));
}

function variantsFor(
  event: EventData,
  fingerprint: string[],
  builtIn: boolean,
): Partial<Record<VariantName, GroupingVariant>> {
  const variants: Partial<Record<VariantName, GroupingVariant>> = {};
  if (event.checksum) {
    const checksum = event.checksum;
    if (/^[0-9a-f]{32}$/.test(checksum)) {
      variants.checksum = { hash: checksum, contributes: true, values: [checksum] };
    } else {
      // Sentry hashes the string as a list of characters: the same bytes as the whole string.
      variants.hashed_checksum = {
        hash: hashFromValues([checksum]),
        contributes: true,
        values: [checksum],
      };
    }
    return variants;
  }
  const type = fingerprintType(fingerprint);
  const resolved = type === 'default' ? fingerprint : resolveFingerprint(fingerprint, event);
  for (const [name, root] of strategyVariants(event)) {
    if (type === 'custom') root.contributes = false;
    const values = valuesOf(root);
    let hash = hashOf(root);
    if (type === 'hybrid' && root.contributes) {
      const salted = resolved.flatMap((entry) => (isDefaultVariable(entry) ? values : [entry]));
      hash = hashFromValues(salted);
      variants[name as VariantName] = { hash, contributes: true, values: salted };
      continue;
    }
    variants[name as VariantName] = { hash, contributes: root.contributes, values };
  }
  if (type === 'custom') {
    variants[builtIn ? 'built_in_fingerprint' : 'custom_fingerprint'] = {
      hash: hashFromValues(resolved),
      contributes: true,
      values: resolved,
    };
  }
  if (!Object.values(variants).some((variant) => variant.contributes)) {
    variants.fallback = { hash: hashFromValues([]), contributes: true, values: [] };
  }
  return variants;
}

function hashesOf(variants: Partial<Record<VariantName, GroupingVariant>>): string[] {
  const names = (Object.keys(variants) as VariantName[]).sort(
    (a, b) => Number(a === 'system') - Number(b === 'system'),
  );
  const hashes: string[] = [];
  for (const name of names) {
    const hash = variants[name]?.hash;
    if (hash && !hashes.includes(hash)) hashes.push(hash);
  }
  return hashes;
}

// ---------------------------------------------------------------------------------------------
// Fingerprints (sentry/grouping/utils.py, fingerprinting/)

const VARIABLE = new RegExp(`^\\{\\{[${PY_SPACE}]*([^${PY_SPACE}]+)[${PY_SPACE}]*\\}\\}$`, 'u');

function variableName(entry: string): string | undefined {
  return VARIABLE.exec(entry)?.[1];
}

function isDefaultVariable(entry: string): boolean {
  return variableName(entry) === 'default';
}

function fingerprintType(fingerprint: string[]): 'default' | 'hybrid' | 'custom' {
  if (fingerprint.length === 1 && isDefaultVariable(fingerprint[0] as string)) return 'default';
  return fingerprint.some(isDefaultVariable) ? 'hybrid' : 'custom';
}

/** Sentry's `resolve_fingerprint_values`. */
function resolveFingerprint(fingerprint: string[], event: EventData): string[] {
  return fingerprint.map((entry) => {
    const name = variableName(entry);
    if (name === undefined) return entry;
    if (name === 'default') return '{{ default }}';
    return resolveVariable(name, event) ?? entry;
  });
}

function resolveVariable(name: string, event: EventData): string | undefined {
  const last = event.exceptions[event.exceptions.length - 1];
  const crash = () => crashFrame(event);
  switch (name) {
    case 'transaction':
      return event.transaction || '<no-transaction>';
    case 'message':
      return event.logentry?.formatted || event.logentry?.message || last?.value || '<no-message>';
    case 'type':
    case 'error.type':
      return last?.type || '<no-type>';
    case 'value':
    case 'error.value':
      return last?.value || '<no-value>';
    case 'function':
    case 'stack.function':
      return crash()?.function || '<no-function>';
    case 'path':
    case 'stack.abs_path':
      return crash()?.absPath || crash()?.filename || '<no-abs-path>';
    case 'stack.filename':
      return crash()?.filename || crash()?.absPath || '<no-filename>';
    case 'module':
    case 'stack.module':
      return crash()?.module || '<no-module>';
    case 'package':
    case 'stack.package': {
      const pkg = crash()?.package?.split('/').pop()?.split('\\').pop();
      return pkg || '<no-package>';
    }
    case 'level':
      return event.level || '<no-level>';
    case 'logger':
      return event.logger || '<no-logger>';
  }
  if (name.startsWith('tags.')) {
    const tag = name.slice(5);
    return event.tags.find(([key]) => key === tag)?.[1] ?? `<no-value-for-tag-${tag}>`;
  }
  return undefined;
}

/** Sentry's `get_crash_frame_from_event_data`: the newest in-app frame, else the newest frame. */
function crashFrame(event: EventData, filter?: (frame: Frame) => boolean): Frame | undefined {
  let frames = event.exceptions[event.exceptions.length - 1]?.frames ?? event.frames;
  if (!frames && event.threads?.length === 1) frames = event.threads[0]?.frames;
  let fallback: Frame | undefined;
  for (let i = (frames?.length ?? 0) - 1; i >= 0; i--) {
    const frame = (frames as Frame[])[i] as Frame;
    if (filter && !filter(frame)) continue;
    if (frame.inApp) return frame;
    fallback ??= frame;
  }
  return fallback;
}

interface BuiltInRule {
  exceptions?: { type?: string; value?: string };
  message?: string;
  transactionTag?: true;
  fingerprint: string[];
}

const HYDRATION_MESSAGES = [
  'Hydration failed because the initial UI does not match what was rendered on the server.',
  'The server could not finish this Suspense boundary, likely due to an error during server rendering. Switched to client rendering.',
  'There was an error while hydrating this Suspense boundary. Switched to client rendering.',
  'There was an error while hydrating. Because the error happened outside of a Suspense boundary, the entire root will switch to client rendering.',
  'Text content does not match server-rendered HTML.',
];

/** Sentry's built-in fingerprinting rules for this config (`javascript@2024-02-02`), in order. */
const BUILT_IN_RULES: BuiltInRule[] = [
  { exceptions: { type: 'ChunkLoadError' }, fingerprint: ['chunkloaderror'] },
  { exceptions: { value: 'ChunkLoadError*' }, fingerprint: ['chunkloaderror'] },
  ...HYDRATION_MESSAGES.map(
    (message): BuiltInRule => ({
      transactionTag: true,
      message,
      fingerprint: ['hydrationerror', '{{tags.transaction}}'],
    }),
  ),
];

/**
 * `apply_server_fingerprinting` with the built-in rules only (all `family:javascript`): the
 * first that matches replaces the event's fingerprint.
 */
function serverFingerprint(event: EventData): { fingerprint: string[]; builtIn: boolean } {
  const client = event.fingerprint.length > 0 ? event.fingerprint : ['{{ default }}'];
  if (familyOf(event.platform) !== 'javascript') return { fingerprint: client, builtIn: false };
  for (const rule of BUILT_IN_RULES) {
    if (ruleMatches(rule, event)) return { fingerprint: rule.fingerprint, builtIn: true };
  }
  return { fingerprint: client, builtIn: false };
}

function ruleMatches(rule: BuiltInRule, event: EventData): boolean {
  const { exceptions, message } = rule;
  if (exceptions) {
    const found = event.exceptions.some(
      (e) =>
        (exceptions.type === undefined || globMatch(e.type, exceptions.type, false)) &&
        (exceptions.value === undefined || globMatch(e.value, exceptions.value, true)),
    );
    if (!found) return false;
  }
  if (rule.transactionTag && !event.tags.some(([key]) => key === 'transaction')) return false;
  if (message !== undefined) {
    const candidates = [event.logentry?.formatted, ...event.exceptions.map((e) => e.value)];
    if (!candidates.some((candidate) => globMatch(candidate, message, true))) return false;
  }
  return true;
}

/** Sentry's `glob_match` for fingerprint rules: `*` is anything, the whole value must match. */
function globMatch(value: string | undefined, pattern: string, ignoreCase: boolean): boolean {
  if (value === undefined) return false;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\?/g, '[^]'))
    .join('[^]*');
  return new RegExp(`^${source}$`, ignoreCase ? 'i' : '').test(value);
}

// ---------------------------------------------------------------------------------------------
// Title and culprit (sentry/eventtypes/, sentry/utils/culprit.py)

/** `ErrorEvent` for events with exceptions, `DefaultEvent` otherwise. */
function titleOf(event: EventData): string {
  const exceptions = event.exceptions;
  if (exceptions.length === 0) {
    const message = pyStrip(event.logentry?.formatted ?? event.logentry?.message ?? '');
    return message ? truncateChars(splitLines(message)[0] ?? '', 100) : '<unlabeled event>';
  }
  const main =
    (event.mainExceptionId !== undefined &&
      exceptions.find((e) => e.mechanism?.exceptionId === event.mainExceptionId)) ||
    (exceptions[exceptions.length - 1] as ExceptionValue);
  const value = truncateChars(main.value ?? '', 1024);
  let title = '';
  if (!main.mechanism?.synthetic) {
    title = truncateChars(main.type ?? 'Error', 128);
    if (value) title += `: ${truncateChars(splitLines(value)[0] ?? '', 100)}`;
  }
  if (title) return title;
  const frame = crashFrame(
    event,
    (f) => !!f.function && f.function !== '<redacted>' && f.function !== '<unknown>',
  );
  return frame?.function || '<unknown>';
}

/** The event's `culprit`, else its transaction, else Sentry's `generate_culprit`. */
function culpritOf(event: EventData): string {
  if (event.culprit) return event.culprit;
  if (event.transaction) return truncateChars(event.transaction, 200);
  let frames: Frame[] | undefined;
  if (event.exceptions.length > 0) {
    const last = event.exceptions[event.exceptions.length - 1];
    if (last?.mechanism?.synthetic) return '';
    frames = event.exceptions.filter((e) => e.frames).pop()?.frames;
  } else {
    frames = event.frames;
  }
  let culprit: string | undefined;
  if (frames) {
    let fallback: string | undefined;
    for (let i = frames.length - 1; i >= 0 && culprit === undefined; i--) {
      const frame = frames[i] as Frame;
      if (frame.inApp) culprit = frameCulprit(frame, event.platform) || undefined;
      else fallback ??= frameCulprit(frame, event.platform);
    }
    culprit ??= fallback;
  }
  return truncateChars(culprit || event.requestUrl || '', 200);
}

/** `file in function`, or `function(file)` for JavaScript and Node, as Sentry writes it. */
function frameCulprit(frame: Frame, eventPlatform: string): string {
  const platform = frame.platform ?? eventPlatform;
  if (platform === 'objc' || platform === 'cocoa' || platform === 'native')
    return frame.function || '?';
  const file = frame.module || frame.filename;
  if (!file) return '';
  if (platform === 'javascript' || platform === 'node') return `${frame.function || '?'}(${file})`;
  return `${file} in ${frame.function || '?'}`;
}

/** Sentry's `truncatechars`: at most `length` characters, the last three "..." when cut. */
function truncateChars(value: string, length: number): string {
  return codePoints(value) > length ? `${[...value].slice(0, length - 3).join('')}...` : value;
}

// ---------------------------------------------------------------------------------------------

function codePoints(value: string): number {
  let count = value.length;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** A string field as Relay keeps it; `allowEmpty` keeps "" (a present but empty field). */
function text(value: unknown, allowEmpty = false): string | undefined {
  return typeof value === 'string' && (allowEmpty || value !== '') ? value : undefined;
}

/** Relay's `JsonLenientString`: other JSON values become their text. */
function lenientString(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? undefined;
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
