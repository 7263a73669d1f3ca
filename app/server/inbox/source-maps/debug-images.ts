/**
 * The event's `debug_meta.images` of type "sourcemap": which chunk (`code_file`, the frame's
 * filename) was built with which debug id. The SDK adds them from the `_sentryDebugIds` the
 * build injects (@sentry/core `applyDebugMeta`). Untrusted: only well-formed ids are kept.
 */
import { isRecord } from '#app/server/is-record';

export interface DebugImage {
  codeFile: string;
  /** Lowercase uuid. */
  debugId: string;
}

/** A debug id is a uuid; sentry-cli and Rollup write it lowercase, some tools uppercase. */
const DEBUG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The SDK adds one image per chunk on the stack: 50 frames at most, so 50 chunks. */
const MAX_IMAGES = 100;

export function isDebugId(value: unknown): value is string {
  return typeof value === 'string' && DEBUG_ID.test(value);
}

/** The images of a raw event payload (the JSON object), in order, well-formed ones only. */
export function debugImagesOf(event: unknown): DebugImage[] {
  const meta = isRecord(event) ? event.debug_meta : undefined;
  const images = isRecord(meta) ? meta.images : undefined;
  if (!Array.isArray(images)) return [];
  const result: DebugImage[] = [];
  for (const image of images.slice(0, MAX_IMAGES)) {
    if (!isRecord(image) || image.type !== 'sourcemap') continue;
    const { code_file: codeFile, debug_id: debugId } = image;
    if (typeof codeFile !== 'string' || codeFile === '' || !isDebugId(debugId)) continue;
    result.push({ codeFile, debugId: debugId.toLowerCase() });
  }
  return result;
}

/** The debug id the event gives for a frame's file, matched exactly as the SDK wrote both. */
export function debugIdFor(filename: string, images: readonly DebugImage[]): string | undefined {
  const image: unknown = images.find((item) => isRecord(item) && item.codeFile === filename);
  return isRecord(image) && typeof image.debugId === 'string' ? image.debugId : undefined;
}
