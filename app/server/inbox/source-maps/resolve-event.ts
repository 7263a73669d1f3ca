/**
 * Every frame of an event's exceptions through the source maps: what the detail view shows
 * (each frame resolved or not, runs of library frames grouped) and the one line the list view
 * shows ("app/routes/sentry-example-page/index.tsx:24 in onClick"). Each map an event needs is
 * asked for once; a failure of any kind becomes that frame's reason, never an exception.
 */

import type { ExceptionDetail, StackFrame } from '#app/server/inbox/inbox-event';
import { isRecord } from '#app/server/inbox/well-formed';
import {
  type FrameGroup,
  type FrameInput,
  frameOrigin,
  framePosition,
  groupFrames,
  originalFrame,
} from './frames';
import {
  type DebugImage,
  debugIdFor,
  isDebugId,
  type MapLookup,
  NO_MAP,
  type SourceMapStore,
} from './map-store';
import { type FrameResolution, type ResolvedFrame, resolveFrame } from './resolve-frame';

export interface ResolvedException {
  type: string;
  value: string;
  /** Most recent call first, as in `ExceptionDetail`; `resolutions[i]` is `frames[i]`'s. */
  frames: StackFrame[];
  resolutions: FrameResolution[];
  /** The same frames, runs of library frames together: the view collapses those. */
  groups: FrameGroup[];
}

export interface TopFrame {
  path: string;
  line: number;
  functionName?: string;
  /** "app/routes/sentry-example-page/index.tsx:24 in onClick". */
  label: string;
}

export interface ResolvedEvent {
  exceptions: ResolvedException[];
  /** The most recent resolved frame of our own code in the thrown exception, if any. */
  topFrame?: TopFrame;
}

export interface ResolveEventInput {
  /** As `eventDetailOf` gives them: the thrown exception first, each most recent call first. */
  exceptions: readonly ExceptionDetail[];
  /** `debugImagesOf(rawEvent)`. */
  debugImages: readonly DebugImage[];
}

export interface ResolveEventOptions {
  /** Absolute directory the app was built in: absolute sources under it are shown relative. */
  projectRoot?: string;
  /**
   * The built server's folder (`.output/server`): a local file inside it is a chunk that
   * still needs its map; any other local file comes already mapped (see frame-origin.ts).
   */
  serverOutputDir?: string;
}

const AS_GIVEN: MapLookup = { found: false, reason: 'already original' };

export async function resolveEventFrames(
  input: ResolveEventInput,
  store: SourceMapStore,
  options: ResolveEventOptions = {},
): Promise<ResolvedEvent> {
  const maps = new Map<string, Promise<MapLookup>>();
  const exceptions: ResolvedException[] = [];
  for (const exception of input.exceptions) {
    const frames: StackFrame[] = Array.isArray(exception.frames) ? exception.frames : [];
    const origins = frames.map((frame) =>
      frameOrigin(isRecord(frame) ? frame.filename : undefined, options.serverOutputDir),
    );
    const lookups = await Promise.all(
      frames.map((frame, i) =>
        origins[i] === 'original' ? AS_GIVEN : mapFor(frame, input.debugImages, store, maps),
      ),
    );
    // Oldest frame first, so each frame knows the name at its caller's call site.
    const resolutions: FrameResolution[] = new Array(frames.length);
    let callerName: string | undefined;
    for (let i = frames.length - 1; i >= 0; i -= 1) {
      const frame = frames[i] as StackFrame;
      const lookup = lookups[i] as MapLookup;
      const resolution: FrameResolution =
        origins[i] === 'original'
          ? originalFrame(frame, { projectRoot: options.projectRoot })
          : lookup.found
            ? resolveFrame(lookup.map, frame as FrameInput, {
                projectRoot: options.projectRoot,
                callerName,
              })
            : ({ resolved: false, reason: lookup.reason } as const);
      callerName = resolution.resolved ? resolution.nameAtPosition : undefined;
      resolutions[i] = resolution;
    }
    exceptions.push({
      type: exception.type,
      value: exception.value,
      frames,
      resolutions,
      groups: groupFrames(frames, resolutions),
    });
  }
  const result: ResolvedEvent = { exceptions };
  const top = topFrameOf(exceptions[0]?.resolutions ?? []);
  if (top) result.topFrame = top;
  return result;
}

/**
 * The map for a frame: by the debug id the event gives for its file, else by the chunk's
 * name. A debug id with no map while a map for the same chunk name exists means the map on
 * disk is from another build, and is not used: its positions would be wrong.
 */
async function mapFor(
  frame: StackFrame,
  images: readonly DebugImage[],
  store: SourceMapStore,
  maps: Map<string, Promise<MapLookup>>,
): Promise<MapLookup> {
  const checked = framePosition(frame);
  if (!checked.ok) return { found: false, reason: checked.reason };
  const { filename, path } = checked.position;
  // Checked again: images normally come from debugImagesOf, but a bad id must only fall back.
  const named = debugIdFor(filename, Array.isArray(images) ? images : []);
  const debugId = isDebugId(named) ? named.toLowerCase() : undefined;
  const key = debugId ? `id:${debugId}` : `url:${filename}`;
  let lookup = maps.get(key);
  if (!lookup) {
    lookup = safely(async () => {
      if (!debugId) return store.byChunkPath(path, filename);
      const byId = await store.byDebugId(debugId);
      if (byId.found || byId.reason !== NO_MAP) return byId;
      const byName = await store.byChunkPath(path, filename);
      return byName.found ? { found: false, reason: 'map for another build' } : byId;
    });
    maps.set(key, lookup);
  }
  return lookup;
}

async function safely(lookup: () => Promise<MapLookup>): Promise<MapLookup> {
  try {
    return await lookup();
  } catch {
    return { found: false, reason: 'source map could not be read' };
  }
}

export function topFrameOf(resolutions: readonly FrameResolution[]): TopFrame | undefined {
  const own = resolutions.find(
    (resolution): resolution is ResolvedFrame => resolution.resolved && !resolution.library,
  );
  if (!own) return undefined;
  const where = `${own.path}:${own.line}`;
  const top: TopFrame = { path: own.path, line: own.line, label: where };
  if (own.functionName) {
    top.functionName = own.functionName;
    top.label = `${where} in ${own.functionName}`;
  }
  return top;
}

/**
 * How many frames nearest the throw the list looks through for the top frame of our code: the
 * list resolves one line per event for up to a page of events, so it stops early. A frame of
 * ours deeper than this under library frames is left to the detail view.
 */
export const TOP_FRAME_SEARCH = 16;

/** The list's one line: `topFrame` of the thrown exception's first TOP_FRAME_SEARCH frames. */
export async function resolveTopFrame(
  input: ResolveEventInput,
  store: SourceMapStore,
  options: ResolveEventOptions = {},
): Promise<TopFrame | undefined> {
  const thrown = input.exceptions[0];
  if (!thrown || !Array.isArray(thrown.frames)) return undefined;
  // One frame more: the deepest one searched is named at its caller's call site.
  const frames = thrown.frames.slice(0, TOP_FRAME_SEARCH + 1);
  const resolved = await resolveEventFrames(
    { exceptions: [{ ...thrown, frames }], debugImages: input.debugImages },
    store,
    options,
  );
  return topFrameOf(resolved.exceptions[0]?.resolutions.slice(0, TOP_FRAME_SEARCH) ?? []);
}
