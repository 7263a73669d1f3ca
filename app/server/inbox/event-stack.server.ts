/**
 * The /errors pages' stacks through the build's source maps, resolved when a page is read, not
 * at ingest: the inbox keeps what Sentry would receive, and a rebuild's maps apply to events
 * stored before it. Resolution never breaks a page. The resolver turns every failure it
 * foresees into a frame's reason; anything else falls back to the stack as it came, reported
 * once through the inbox's own report channel (an unreadable entry's).
 */
import { processShared } from '#app/server/process-shared.server';
import { INBOX_LIMIT, type LocalInbox } from './inbox.server';
import type { ExceptionDetail } from './inbox-event';
import { readEventStack } from './inbox-event';
import { type BuildMaps, buildMaps } from './source-maps/build-maps.server';
import { debugImagesOf } from './source-maps/debug-images';
import { LruCache } from './source-maps/lru-cache';
import { resolveEventFrames, resolveTopFrame } from './source-maps/resolve-event';
import { type ExceptionView, stackAsItCame, stackViewOf } from './stack-view';

export const NO_BUILD_REASON = 'no built source maps (development server)';
export const FAILED_REASON = 'source maps could not be applied';

/** What the pages resolve with; the build's own unless a test gives others. */
export interface StackDependencies {
  maps?: BuildMaps | undefined;
  resolve?: typeof resolveEventFrames;
  resolveTop?: typeof resolveTopFrame;
  cache?: LruCache<string, string | null>;
}

/** Every frame of the event for the detail page. */
export async function stackForDetail(
  inbox: Pick<LocalInbox, 'reportEntry'>,
  entryId: string,
  exceptions: ExceptionDetail[],
  event: Record<string, unknown>,
  dependencies: StackDependencies = {},
): Promise<ExceptionView[]> {
  const { resolve = resolveEventFrames } = dependencies;
  try {
    const maps = mapsOf(dependencies);
    if (!maps) return stackAsItCame(exceptions, NO_BUILD_REASON);
    const resolved = await resolve({ exceptions, debugImages: debugImagesOf(event) }, maps.store, {
      projectRoot: maps.projectRoot,
      serverOutputDir: maps.serverOutputDir,
    });
    return stackViewOf(resolved);
  } catch (error) {
    inbox.reportEntry(entryId, 'frames', failure(entryId, 'its frames', error));
    return stackAsItCame(exceptions, FAILED_REASON);
  }
}

/**
 * Entry id → "app/routes/…/index.tsx:24 in onClick" (or null: none of ours near the throw).
 * Entries never change once written and the maps only with a rebuild (a restart), so a line
 * is worked out once per entry per process. Bounded like the inbox itself.
 */
const topFrames = processShared(
  'inbox-top-frames',
  () => new LruCache<string, string | null>(INBOX_LIMIT, Number.POSITIVE_INFINITY),
);

/**
 * The list's one line per event, for the events on one page only. Each entry is read and
 * resolved once (then remembered), one entry per turn of the event loop, and only the frames
 * nearest the throw are looked at (TOP_FRAME_SEARCH).
 */
export async function topFramesFor(
  inbox: Pick<LocalInbox, 'read' | 'reportEntry'>,
  entryIds: readonly string[],
  dependencies: StackDependencies = {},
): Promise<Map<string, string>> {
  const { resolveTop = resolveTopFrame, cache = topFrames } = dependencies;
  const labels = new Map<string, string>();
  let maps: BuildMaps | undefined;
  try {
    maps = mapsOf(dependencies);
  } catch (error) {
    // Never fails the list: the events are listed without their line.
    console.warn(`[inbox] the build's source maps could not be opened: ${String(error)}`);
  }
  if (!maps) return labels;
  for (const id of entryIds) {
    let label = cache.get(id);
    if (label === undefined) {
      await nextTurn();
      label = await topFrameOf(inbox, id, maps, resolveTop);
      cache.set(id, label, 1);
    }
    if (label) labels.set(id, label);
  }
  return labels;
}

async function topFrameOf(
  inbox: Pick<LocalInbox, 'read' | 'reportEntry'>,
  id: string,
  maps: BuildMaps,
  resolveTop: typeof resolveTopFrame,
): Promise<string | null> {
  try {
    const bytes = await inbox.read(id);
    const stack = bytes ? readEventStack(bytes) : undefined;
    if (!stack) return null;
    const top = await resolveTop(
      { exceptions: stack.exceptions, debugImages: debugImagesOf(stack.event) },
      maps.store,
      { projectRoot: maps.projectRoot, serverOutputDir: maps.serverOutputDir },
    );
    return top?.label ?? null;
  } catch (error) {
    inbox.reportEntry(id, 'top frame', failure(id, 'its top frame', error));
    return null;
  }
}

/** The maps a test gave (`maps: undefined` for none), else the build's. */
function mapsOf(dependencies: StackDependencies): BuildMaps | undefined {
  return 'maps' in dependencies ? dependencies.maps : buildMaps();
}

function failure(id: string, what: string, error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return `entry ${id}: ${what} could not be resolved (${reason}); shown without source maps`;
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
