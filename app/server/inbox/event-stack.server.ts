/**
 * An event's stack on the /errors pages: resolved through the build's maps when a page is read,
 * then arranged into the view the page shows (our frames open, library runs folded).
 */
import { LRUCache } from 'lru-cache';
import { devBuildMaps } from '#app/server/failures/dev-failure.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { processShared } from '#app/start-1.120/process-shared.server';
import { type ExceptionDetail, exceptionsOf, type StackFrame, storedEventOf } from './inbox-event';
import { type BuildMaps, buildMaps, debugImagesOf } from './source-maps/map-store.server';
import {
  type FrameResolution,
  type ResolvedEvent,
  resolveEventFrames,
  resolveTopFrame,
  type SourceContext,
} from './source-maps/resolve-frame';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'inbox-top-frames': LRUCache<string, string>;
    'inbox-stack-failures': LRUCache<string, true>;
  }
}

/**
 * The /errors pages' stacks through the build's source maps, resolved when a page is read, not
 * at ingest: the inbox keeps what Sentry would receive, and a rebuild's maps apply to events
 * stored before it. Resolution never breaks a page. The resolver turns every failure it
 * foresees into a frame's reason; anything else falls back to the stack as it came, and is
 * logged once per event (rate-limited), never stored in the inbox: a failure stored there
 * would be one more event each time the page is viewed.
 */
export const NO_BUILD_REASON = 'no source maps (no build, and no dev server)';
export const FAILED_REASON = 'source maps could not be applied';
/** Events whose top frame the process remembers, and whose failures it has logged. */
const REMEMBERED_EVENTS = 1000;

/** What the pages resolve with; the build's own unless a test gives others. */
export interface StackDependencies {
  maps?: BuildMaps | undefined;
  resolve?: typeof resolveEventFrames;
  resolveTop?: typeof resolveTopFrame;
  cache?: LRUCache<string, string>;
  /** Where a failure goes; once per event and topic by default (`reportOnce`). */
  report?: (eventId: string, topic: string, message: string) => void;
}

/** Every frame of the event for the detail view. */
export async function stackForDetail(
  eventId: string,
  exceptions: ExceptionDetail[],
  event: Record<string, unknown>,
  dependencies: StackDependencies = {},
): Promise<ExceptionView[]> {
  const { resolve = resolveEventFrames, report = reportOnce } = dependencies;
  try {
    const maps = mapsOf(dependencies);
    if (!maps) return stackAsItCame(exceptions, NO_BUILD_REASON);
    const resolved = await resolve({ exceptions, debugImages: debugImagesOf(event) }, maps.store, {
      projectRoot: maps.projectRoot,
      serverOutputDir: maps.serverOutputDir,
    });
    return stackViewOf(resolved, exceptions);
  } catch (error) {
    report(eventId, 'frames', failure(eventId, 'its frames', error));
    return stackAsItCame(exceptions, FAILED_REASON);
  }
}

/**
 * Event id → "app/routes/…/index.tsx:24 in onClick" ('': none of ours near the throw).
 * A stored event never changes and the maps only with a rebuild (a restart), so a line is
 * worked out once per event per process.
 */
const topFrames = processShared(
  'inbox-top-frames',
  () => new LRUCache<string, string>({ max: REMEMBERED_EVENTS }),
);

/** A stored event the list names a line for: its id, and its payload when asked. */
export interface StoredEventRef {
  eventId: string;
  payload(): string | undefined;
}

/**
 * The list's one line per issue, from each issue's latest event, for the issues on one page
 * only. Each event is read and resolved once (then remembered), one event per turn of the event
 * loop, and only the frames nearest the throw are looked at (TOP_FRAME_SEARCH).
 */
export async function topFramesFor(
  events: readonly StoredEventRef[],
  dependencies: StackDependencies = {},
): Promise<Map<string, string>> {
  const { resolveTop = resolveTopFrame, cache = topFrames, report = reportOnce } = dependencies;
  const labels = new Map<string, string>();
  let maps: BuildMaps | undefined;
  try {
    maps = mapsOf(dependencies);
  } catch (error) {
    // Never fails the list: the issues are listed with their culprit only.
    warnLimited(
      'inbox maps',
      `[inbox] the build's source maps could not be opened: ${String(error)}`,
    );
  }
  if (!maps) return labels;
  for (const ref of events) {
    let label = cache.get(ref.eventId);
    if (label === undefined) {
      await nextTurn();
      label = await topFrameOf(ref, maps, resolveTop, report);
      cache.set(ref.eventId, label);
    }
    if (label) labels.set(ref.eventId, label);
  }
  return labels;
}

async function topFrameOf(
  ref: StoredEventRef,
  maps: BuildMaps,
  resolveTop: typeof resolveTopFrame,
  report: NonNullable<StackDependencies['report']>,
): Promise<string> {
  try {
    const payload = ref.payload();
    const event = payload === undefined ? undefined : storedEventOf(payload);
    if (!event) return '';
    const top = await resolveTop(
      { exceptions: exceptionsOf(event), debugImages: debugImagesOf(event) },
      maps.store,
      { projectRoot: maps.projectRoot, serverOutputDir: maps.serverOutputDir },
    );
    return top?.label ?? '';
  } catch (error) {
    report(ref.eventId, 'top frame', failure(ref.eventId, 'its top frame', error));
    return '';
  }
}

const reported = processShared(
  'inbox-stack-failures',
  () => new LRUCache<string, true>({ max: REMEMBERED_EVENTS }),
);

/** Logs a failure once per event and topic (while the process remembers the event). */
function reportOnce(eventId: string, topic: string, message: string): void {
  const key = `${eventId}#${topic}`;
  if (reported.get(key)) return;
  reported.set(key, true);
  warnLimited('inbox stack', `[inbox] ${message}`);
}

/** The maps a test gave (`maps: undefined` for none), else the build's, else the dev server's. */
function mapsOf(dependencies: StackDependencies): BuildMaps | undefined {
  return 'maps' in dependencies ? dependencies.maps : (buildMaps() ?? devBuildMaps());
}

function failure(eventId: string, what: string, error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return `event ${eventId}: ${what} could not be resolved (${reason}); shown without source maps`;
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * What the detail page receives of a stack: only what it shows. Each frame once, where it is in
 * our source (or where it came from, with the reason it could not be resolved), the source
 * lines around it for our own frames (from the build's maps, else as the SDK sent them), and
 * runs of library frames together so the page can fold them. Pure.
 */
export interface FrameView {
  functionName?: string;
  /** The original path ("app/routes/…/index.tsx"), or the frame's file as it came. */
  file?: string;
  line?: number;
  column?: number;
  /** The lines around `line`, for our own frames: the map's source, else the SDK's lines. */
  context?: SourceContext;
  /** Why the frame is shown as it came ("no map for this file"); absent when resolved. */
  reason?: string;
  /** The event calls the frame our own code (`in_app`), as Sentry's grouping will. */
  inApp?: true;
}

export type FrameRun =
  | { kind: 'frame'; frame: FrameView }
  /** Consecutive library frames (React, the router, the SDK), in order; never empty. */
  | { kind: 'library'; frames: FrameView[] };

export interface ExceptionView {
  type: string;
  value: string;
  /** Most recent call first. */
  runs: FrameRun[];
  /** The thread the frames are from, when they are a thread's ("main (crashed)"). */
  thread?: string;
}

/** The resolver's answer, trimmed to the page. */
export function stackViewOf(
  resolved: ResolvedEvent,
  exceptions: readonly ExceptionDetail[],
): ExceptionView[] {
  return resolved.exceptions.map((exception, index) => ({
    ...header(exceptions[index] ?? exception),
    runs: exception.groups.map((group): FrameRun => {
      const view = (index: number, withContext: boolean) =>
        frameView(exception.frames[index], exception.resolutions[index], withContext);
      return group.kind === 'frame'
        ? { kind: 'frame', frame: view(group.index, true) }
        : // Library source is not ours to read through: the place is enough, and it keeps the
          // page small (most of a 50-frame stack is React's).
          { kind: 'library', frames: group.indices.map((index) => view(index, false)) };
    }),
  }));
}

/** The stack as stored, each frame on its own, with one reason for all (or none). */
export function stackAsItCame(
  exceptions: readonly ExceptionDetail[],
  reason?: string,
): ExceptionView[] {
  return exceptions.map((exception) => ({
    ...header(exception),
    runs: exception.frames.map(
      (frame): FrameRun => ({ kind: 'frame', frame: asItCame(frame, reason) }),
    ),
  }));
}

function header(exception: Pick<ExceptionDetail, 'type' | 'value' | 'thread'>) {
  const { type, value, thread } = exception;
  return thread === undefined ? { type, value } : { type, value, thread };
}

function frameView(
  frame: StackFrame | undefined,
  resolution: FrameResolution | undefined,
  withContext: boolean,
): FrameView {
  if (!resolution?.resolved) return asItCame(frame, resolution?.reason, withContext);
  const view: FrameView = {
    file: resolution.path,
    line: resolution.line,
    column: resolution.column,
  };
  if (resolution.functionName) view.functionName = resolution.functionName;
  // A frame Node mapped has no source of its own here (`frameOrigin` in ./source-maps/resolve-frame.ts): the SDK's lines are
  // for the same file and line.
  const context = resolution.context ?? frame?.context;
  if (withContext && context) view.context = context;
  if (frame?.inApp) view.inApp = true;
  return view;
}

function asItCame(
  frame: StackFrame | undefined,
  reason: string | undefined,
  withContext = true,
): FrameView {
  const view: FrameView = {};
  if (frame?.function) view.functionName = frame.function;
  if (frame?.filename) view.file = frame.filename;
  if (frame?.lineno !== undefined) view.line = frame.lineno;
  if (frame?.colno !== undefined) view.column = frame.colno;
  if (withContext && frame?.context && view.line !== undefined) view.context = frame.context;
  if (reason) view.reason = reason;
  if (frame?.inApp) view.inApp = true;
  return view;
}
