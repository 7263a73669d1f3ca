/**
 * The event as Sentry groups it: Sentry applies source maps before grouping, so a minified
 * frame (`client-AbC123.js` in `a`) counts by its original file and source line. Without this,
 * every deploy (new chunk hashes, new minified names) would open new issues for old bugs. Only
 * the grouping sees the resolved frames; the stored event keeps the frames as they came, and
 * the pages resolve them again as they are read (../event-stack.server.ts).
 *
 * A frame the maps resolve gets Sentry's processed shape: the original path and function, the
 * line, the `context_line`, and `data.sourcemap` (which is what tells Sentry's grouping to use
 * the context line). Any frame that does not resolve is left as it came.
 */
import { isRecord } from '#app/server/is-record';
import type { StackFrame } from '../inbox-event';
import { debugImagesOf } from '../source-maps/debug-images';
import type { SourceMapStore } from '../source-maps/map-store';
import { resolveEventFrames } from '../source-maps/resolve-event';

/** Files one event may send through the maps before it is grouped as it came. */
export const MAX_FILES_RESOLVED = 8;

export interface GroupingMaps {
  store: SourceMapStore;
  projectRoot: string;
  serverOutputDir: string;
}

export async function resolvedForGrouping(
  event: Record<string, unknown>,
  maps: GroupingMaps | undefined,
): Promise<Record<string, unknown>> {
  if (!maps) return event;
  const exception = isRecord(event.exception) ? event.exception : undefined;
  const values = Array.isArray(exception?.values) ? exception.values : [];
  if (values.length === 0) return event;
  const framesOf = (value: unknown): Record<string, unknown>[] => {
    const stack = isRecord(value) && isRecord(value.stacktrace) ? value.stacktrace : undefined;
    return Array.isArray(stack?.frames) ? stack.frames.filter(isRecord) : [];
  };
  // A real stack touches a handful of chunks; one built to name every map of the build would
  // make the thread parse maps for each event (the cache holds 16), slowing everyone's reports.
  const files = new Set(
    values.flatMap((value) => framesOf(value).map((frame) => frame.abs_path ?? frame.filename)),
  );
  if (files.size > MAX_FILES_RESOLVED) return event;
  // The resolver takes frames most recent first; Sentry's are oldest first.
  const resolved = await resolveEventFrames(
    {
      exceptions: values.map((value) => ({
        type: '',
        value: '',
        frames: framesOf(value).map(asStackFrame).reverse(),
      })),
      debugImages: debugImagesOf(event),
    },
    maps.store,
    { projectRoot: maps.projectRoot, serverOutputDir: maps.serverOutputDir },
  );
  const mapped = values.map((value, index) => {
    const frames = framesOf(value);
    const resolutions = [...(resolved.exceptions[index]?.resolutions ?? [])].reverse();
    if (!isRecord(value) || frames.length === 0) return value;
    const stacktrace = isRecord(value.stacktrace) ? value.stacktrace : {};
    return {
      ...value,
      stacktrace: {
        ...stacktrace,
        frames: frames.map((frame, i) => {
          const resolution = resolutions[i];
          if (!resolution?.resolved) return frame;
          return {
            ...frame,
            filename: resolution.path,
            abs_path: resolution.path,
            function: resolution.functionName ?? frame.function,
            lineno: resolution.line,
            colno: resolution.column,
            in_app: !resolution.library,
            ...(resolution.context ? { context_line: resolution.context.line } : {}),
            data: { ...(isRecord(frame.data) ? frame.data : {}), sourcemap: 'build' },
          };
        }),
      },
    };
  });
  return { ...event, exception: { ...exception, values: mapped } };
}

function asStackFrame(frame: Record<string, unknown>): StackFrame {
  const shaped: StackFrame = { inApp: frame.in_app === true };
  if (typeof frame.abs_path === 'string') shaped.filename = frame.abs_path;
  else if (typeof frame.filename === 'string') shaped.filename = frame.filename;
  if (typeof frame.function === 'string') shaped.function = frame.function;
  if (typeof frame.lineno === 'number') shaped.lineno = frame.lineno;
  if (typeof frame.colno === 'number') shaped.colno = frame.colno;
  return shaped;
}
