/**
 * Server frames completed from the build's own maps where the server event is made, so the
 * log line, the local inbox and Sentry all get the same: the source lines around each of our
 * frames and the functions' original names (original-frames.ts). The maps are the ones Node
 * already loaded for its mapped stacks (decision 0701), found by `findSourceMap`; nothing here
 * reads a map file. Decision: docs/decisions/1110-server-frames-where-the-event-is-made.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { findSourceMap } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TraceMap } from '@jridgewell/trace-mapping';
import type { StackFrame } from '@sentry/core';
import { buildOutputOf } from '#app/server/inbox/source-maps/map-store.server';
import { processShared } from '#app/start-1.120/process-shared.server';
import { originalFacts, type ServerChunk, type SourceInChunk } from './original-frames';

interface ChunkIndex {
  /** Absolute source path → where the build has it. */
  bySource: Map<string, SourceInChunk[]>;
  /** Chunk files whose map Node had not loaded yet when last looked at. */
  pending: string[];
}

const shared = processShared('server-frame-index', () => ({
  index: undefined as ChunkIndex | undefined,
}));

/** The built server's chunks (index.mjs and chunks/): undefined under `vinxi dev`, which has none. */
function chunkIndex(): ChunkIndex | undefined {
  if (shared.index) return shared.index;
  const output = buildOutputOf(import.meta.url);
  if (!output) return undefined;
  let files: string[];
  try {
    files = [join(output.serverDir, 'index.mjs'), ...chunkFiles(join(output.serverDir, 'chunks'))];
  } catch {
    files = [];
  }
  shared.index = { bySource: new Map(), pending: files };
  return shared.index;
}

function chunkFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.mjs'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Indexes the chunks whose maps Node has loaded since the last look (a chunk loads once). */
function indexLoadedChunks(index: ChunkIndex): void {
  const still: string[] = [];
  for (const file of index.pending) {
    const payload = findSourceMap(pathToFileURL(file).href)?.payload;
    if (!payload) {
      still.push(file);
      continue;
    }
    const chunk = lazyChunk(file, payload);
    // Node made each source absolute (file: URLs, the bundler's query kept); frames name the path.
    for (const source of payload.sources) {
      const path = pathOf(source);
      if (!path || path.includes('/node_modules/')) continue;
      const places = index.bySource.get(path) ?? [];
      places.push({ chunk, source });
      index.bySource.set(path, places);
    }
  }
  index.pending = still;
}

/** The map is decoded, and the chunk's text read, only when a frame first needs them. */
function lazyChunk(file: string, payload: { mappings?: unknown }): ServerChunk {
  let map: TraceMap | undefined;
  let lines: string[] | undefined;
  return {
    mappingsLength: typeof payload.mappings === 'string' ? payload.mappings.length : 0,
    get map() {
      map ??= new TraceMap(payload as ConstructorParameters<typeof TraceMap>[0]);
      return map;
    },
    lines() {
      lines ??= readFileSync(file, 'utf8').split('\n');
      return lines;
    },
  };
}

function pathOf(source: string): string | undefined {
  try {
    return fileURLToPath(source.replace(/[?#].*$/, ''));
  } catch {
    return undefined;
  }
}

function placesOf(filename: string | undefined): SourceInChunk[] {
  if (!filename?.startsWith('/') || filename.includes('/node_modules/')) return [];
  const index = chunkIndex();
  if (!index) return [];
  // Also when the file is indexed already: a module the pages and the server functions both
  // import is in two chunks, and the server functions' chunk loads at their first call.
  if (index.pending.length > 0) indexLoadedChunks(index);
  return index.bySource.get(filename) ?? [];
}

/**
 * The frames with their source lines and original names, as Sentry's stack frame interface
 * has them (`function`, `pre_context`, `context_line`, `post_context`). Frames of libraries
 * and of files no map lists come back as they were. Never throws.
 */
export function withOriginalFacts(frames: readonly StackFrame[]): StackFrame[] {
  return frames.map((frame) => {
    try {
      const facts = originalFacts(frame, placesOf(frame.filename));
      const completed: StackFrame = { ...frame };
      if (facts.function) completed.function = facts.function;
      if (facts.context) {
        completed.pre_context = facts.context.pre;
        completed.context_line = facts.context.line;
        completed.post_context = facts.context.post;
      }
      return completed;
    } catch {
      return frame;
    }
  });
}

/** V8's frame line: `    at name (/path/file.ts:10:5)`. */
const NAMED_FRAME = /^(\s*at (?:async )?)(.+?) \((\/[^()]+):(\d+):(\d+)\)$/;

/** The stack's text with our frames' original names, for the log line. Never throws. */
export function stackWithOriginalNames(stack: string): string {
  try {
    return stack
      .split('\n')
      .map((line) => {
        const match = NAMED_FRAME.exec(line);
        if (!match) return line;
        const [, head, name, filename, lineno, colno] = match as unknown as string[];
        const frame = { function: name, lineno: Number(lineno), colno: Number(colno) };
        const renamed = originalFacts(frame, placesOf(filename)).function;
        return renamed ? `${head}${renamed} (${filename}:${lineno}:${colno})` : line;
      })
      .join('\n');
  } catch {
    return stack;
  }
}
