/**
 * What the detail page receives of a stack: only what it shows. Each frame once, where it is in
 * our source (or where it came from, with the reason it could not be resolved), the source
 * lines around it for our own frames (from the build's maps, else as the SDK sent them), and
 * runs of library frames together so the page can fold them. Pure.
 */
import type { ExceptionDetail, StackFrame } from './inbox-event';
import type { ResolvedEvent } from './source-maps/resolve-event';
import type { FrameResolution, SourceContext } from './source-maps/resolve-frame';

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
  // A frame Node mapped has no source of its own here (frame-origin.ts): the SDK's lines are
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
