/**
 * What the detail page receives of a stack: only what it shows. Each frame once, where it is in
 * our source (or where it came from, with the reason it could not be resolved), five lines of
 * source for our own frames, and runs of library frames together so the page can fold them.
 * Pure.
 */
import type { ExceptionDetail, StackFrame } from './inbox-event';
import type { ResolvedEvent } from './source-maps/resolve-event';
import type { FrameResolution } from './source-maps/resolve-frame';
import type { SourceContext } from './source-maps/source-context';

export interface FrameView {
  functionName?: string;
  /** The original path ("app/routes/…/index.tsx"), or the frame's file as it came. */
  file?: string;
  line?: number;
  column?: number;
  /** The lines around `line`, for our own frames when the map carries the source. */
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
}

/** The resolver's answer, trimmed to the page. */
export function stackViewOf(resolved: ResolvedEvent): ExceptionView[] {
  return resolved.exceptions.map((exception) => ({
    type: exception.type,
    value: exception.value,
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
    type: exception.type,
    value: exception.value,
    runs: exception.frames.map(
      (frame): FrameRun => ({ kind: 'frame', frame: asItCame(frame, reason) }),
    ),
  }));
}

function frameView(
  frame: StackFrame | undefined,
  resolution: FrameResolution | undefined,
  withContext: boolean,
): FrameView {
  if (!resolution?.resolved) return asItCame(frame, resolution?.reason);
  const view: FrameView = {
    file: resolution.path,
    line: resolution.line,
    column: resolution.column,
  };
  if (resolution.functionName) view.functionName = resolution.functionName;
  if (withContext && resolution.context) view.context = resolution.context;
  if (frame?.inApp) view.inApp = true;
  return view;
}

function asItCame(frame: StackFrame | undefined, reason: string | undefined): FrameView {
  const view: FrameView = {};
  if (frame?.function) view.functionName = frame.function;
  if (frame?.filename) view.file = frame.filename;
  if (frame?.lineno !== undefined) view.line = frame.lineno;
  if (frame?.colno !== undefined) view.column = frame.colno;
  if (reason) view.reason = reason;
  if (frame?.inApp) view.inApp = true;
  return view;
}
