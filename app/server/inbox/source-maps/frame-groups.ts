/**
 * Frames in runs for the detail view: each of our frames on its own, consecutive library
 * frames together so the view can show "3 library frames" folded. Pure.
 */

import type { StackFrame } from '#app/server/inbox/inbox-event';
import { isRecord } from '#app/server/is-record';
import type { FrameResolution } from './resolve-frame';

export type FrameGroup =
  | { kind: 'frame'; index: number }
  /** `indices` into the exception's frames, in order; never empty. */
  | { kind: 'library'; indices: number[] };

/** An unresolved frame is a library's when its own file is under node_modules (server stacks). */
const LIBRARY_FILE = /(?:^|[/\\])node_modules[/\\]/;

export function isLibraryFrame(
  frame: StackFrame,
  resolution: FrameResolution | undefined,
): boolean {
  if (resolution?.resolved) return resolution.library;
  const filename: unknown = isRecord(frame) ? frame.filename : undefined;
  return typeof filename === 'string' && LIBRARY_FILE.test(filename);
}

export function groupFrames(
  frames: readonly StackFrame[],
  resolutions: readonly FrameResolution[],
): FrameGroup[] {
  const groups: FrameGroup[] = [];
  frames.forEach((frame, index) => {
    if (!isLibraryFrame(frame, resolutions[index])) {
      groups.push({ kind: 'frame', index });
      return;
    }
    const last = groups[groups.length - 1];
    if (last?.kind === 'library') last.indices.push(index);
    else groups.push({ kind: 'library', indices: [index] });
  });
  return groups;
}
