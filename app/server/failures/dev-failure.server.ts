/**
 * Development's view of a failure: the terminal block (a server failure) and line (a browser
 * failure), then the error overlay's content (decision 0970). Production has none of it: there a
 * failure is the one JSON line a log pipeline parses (./record-failure.server.ts).
 */

import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { TraceMap } from '@jridgewell/trace-mapping';
import { LRUCache } from 'lru-cache';
import * as v from 'valibot';
import type { ViteDevServer } from 'vite';
import { GECKO_FRAME, V8_FRAME } from '#app/monitoring/recorder/minimal-envelope';
import type { StackFrame as EventFrame } from '#app/server/inbox/inbox-event';
import type { BuildMaps } from '#app/server/inbox/source-maps/map-store.server';
import {
  type MapLookup,
  NO_MAP,
  type SourceMapStore,
} from '#app/server/inbox/source-maps/map-store.server';
import { resolveEventFrames } from '#app/server/inbox/source-maps/resolve-frame';
import { processShared } from '#app/start-1.120/process-shared.server';
import { devViteServer } from '../../../build/dev-overlay';
import type { FailureContext } from './record-failure.server';

// The terminal block: message, a code frame of the throwing line, our frames, library frames
// counted not listed, the digest. Pure: the source is read through `readSource`.

/** At most this many of our own frames; a deeper stack says how many more. */
const OWN_FRAMES = 8;
/** Lines of source either side of the throwing line. */
const CONTEXT_LINES = 2;

export interface StackFrame {
  fn?: string;
  /** Project-relative when the file is under `root`, otherwise as the stack gave it. */
  file: string;
  line: number;
  column: number;
  own: boolean;
}

/** Frames of a server stack (Node's: V8's format); ours are files under `root` outside node_modules. */
export function framesOf(stack: string, root: string): StackFrame[] {
  return stackFramesOf(stack).map((frame) => {
    // vite's module ids carry a query (`?tsr-split=component`): not part of the file.
    const file = (frame.filename ?? '').replace(/^file:\/\//, '').replace(/\?.*$/, '');
    const underRoot = file.startsWith(`${root}/`);
    return {
      ...(frame.function ? { fn: frame.function } : {}),
      file: underRoot ? file.slice(root.length + 1) : file,
      line: frame.lineno ?? 0,
      column: frame.colno ?? 0,
      own: underRoot && !file.includes('/node_modules/'),
    };
  });
}

/** Lines around `line` with a marker under `column`, as vite's and Next.js's overlays show. */
export function codeFrame(source: string, line: number, column: number): string[] {
  const lines = source.split('\n');
  const first = Math.max(1, line - CONTEXT_LINES);
  const last = Math.min(lines.length, line + CONTEXT_LINES);
  const width = String(last).length;
  const frame: string[] = [];
  for (let at = first; at <= last; at += 1) {
    const gutter = `${at === line ? '>' : ' '} ${String(at).padStart(width)} | `;
    frame.push(`${gutter}${lines[at - 1] ?? ''}`.trimEnd());
    if (at === line) frame.push(`  ${' '.repeat(width)} | ${' '.repeat(Math.max(0, column - 1))}^`);
  }
  return frame;
}

function messageOf(error: unknown): string {
  try {
    if (error instanceof Error) return `${error.name}: ${String(error.message)}`;
    return String(error);
  } catch {
    return 'unprintable value';
  }
}

function stackOf(error: unknown): string {
  try {
    return error instanceof Error && typeof error.stack === 'string' ? error.stack : '';
  } catch {
    return '';
  }
}

export interface BlockOptions {
  /** The project's root: frames under it (outside node_modules) are ours. */
  root: string;
  /** A project-relative file's text, or undefined when it cannot be read. */
  readSource(file: string): string | undefined;
}

/**
 * What development shows of a failure, in the terminal and in the browser's overlay: the
 * message, where our code threw (with a code frame), our frames, and how many library frames
 * were folded away.
 */
export interface DevFailureView {
  message: string;
  /** Our frame nearest the throw. */
  top?: StackFrame;
  /** The code frame around `top`, when its source could be read. */
  frame: string[];
  own: StackFrame[];
  libraryFrames: number;
}

/** A view of frames already parsed (and, for the browser's, resolved through source maps). */
function devFailureView(
  message: string,
  frames: readonly StackFrame[],
  readSource: BlockOptions['readSource'],
): DevFailureView {
  const own = frames.filter((frame) => frame.own);
  const top = own[0];
  const source = top ? safely(() => readSource(top.file)) : undefined;
  return {
    message: message.split('\n')[0] ?? '',
    ...(top ? { top } : {}),
    frame: top && source !== undefined ? codeFrame(source, top.line, top.column) : [],
    own,
    libraryFrames: frames.length - own.length,
  };
}

/** The view of a thrown value on this server (its stack is Node's, already source-mapped). */
function serverFailureView(error: unknown, options: BlockOptions): DevFailureView {
  return devFailureView(
    messageOf(error),
    framesOf(stackOf(error), options.root),
    options.readSource,
  );
}

/** The development block for a failure. Never throws, whatever was thrown. */
export function failureBlock(
  error: unknown,
  digest: string,
  context: FailureContext,
  options: BlockOptions,
): string {
  return blockOf(serverFailureView(error, options), digest, context);
}

function blockOf(view: DevFailureView, digest: string, context: FailureContext): string {
  const where = `${context.phase} of ${context.route}${context.url ? ` (${context.method} ${context.url})` : ''}`;
  const block = [`✖ ${where} failed · digest ${digest}`, `  ${view.message}`];
  if (view.top) {
    block.push('', `  ${locationOf(view.top)}`, ...view.frame.map((line) => `  ${line}`), '');
  }
  block.push(...stackLines(view));
  return block.join('\n');
}

/** Our frames, at most OWN_FRAMES, then the count of those left out and of library frames. */
function stackLines(view: DevFailureView): string[] {
  const lines = view.own
    .slice(0, OWN_FRAMES)
    .map((frame) => `    at ${frame.fn ? `${frame.fn} ` : ''}(${locationOf(frame)})`);
  if (view.own.length > OWN_FRAMES)
    lines.push(`    … ${view.own.length - OWN_FRAMES} more of our frames`);
  if (view.libraryFrames > 0)
    lines.push(`    + ${view.libraryFrames} library frame${view.libraryFrames === 1 ? '' : 's'}`);
  return lines;
}

function locationOf(frame: StackFrame): string {
  return `${frame.file}:${frame.line}:${frame.column}`;
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/**
 * Development's error overlay, the server's half (decision 0970). The browser shows vite's own
 * overlay element (`vite-error-overlay`) with what this module gives it:
 *
 * - a server failure (SSR render, loader, beforeLoad, server function) is remembered here by
 *   its digest when it is recorded; the page, which only has the digest, asks for it;
 * - a browser failure's stack is sent here, resolved through the dev server's own source maps
 *   (the transformed modules' maps, as vite serves them), printed as one terminal line, and
 *   given back.
 *
 * Only `vinxi dev` loads this module (build/dev-overlay.ts mounts it on the client router's vite
 * server); the production build has no route to it and no client code for it.
 */
/** The overlay's input: vite's `ErrorPayload['err']`. */
export interface OverlayError {
  message: string;
  stack: string;
  frame?: string;
  loc?: { file: string; line: number; column: number };
}

/** Server failures the pages may still ask for; a dev session makes few. */
const REMEMBERED_FAILURES = 100;
/** A browser report's body: a message and a stack, never more. */
const MAX_BROWSER_REPORT = 64 * 1024;

const serverFailures = processShared(
  'dev-overlay-failures',
  () => new LRUCache<string, OverlayError>({ max: REMEMBERED_FAILURES }),
);

function projectFiles(): BlockOptions {
  const root = process.cwd();
  return { root, readSource: (file) => readFileSync(join(root, file), 'utf8') };
}

/**
 * Where a server failure is recorded, in development: remembers its overlay under its digest
 * (the page asks for it as soon as it runs) and gives the terminal block. One view for both.
 */
export function devFailureEntry(error: unknown, digest: string, context: FailureContext): string {
  const view = serverFailureView(error, projectFiles());
  const where = `${context.phase} of ${context.route}`;
  serverFailures.set(digest, overlayErrorOf(view, `Server: ${where} failed · digest ${digest}`));
  return blockOf(view, digest, context);
}

export function overlayErrorOf(view: DevFailureView, heading: string): OverlayError {
  return {
    message: view.message,
    stack: [heading, ...stackLines(view)].join('\n'),
    ...(view.frame.length > 0 ? { frame: untrimmed(view.frame.join('\n')) } : {}),
    ...(view.top
      ? { loc: { file: view.top.file, line: view.top.line, column: view.top.column } }
      : {}),
  };
}

/**
 * vite's overlay trims the code frame, which shifts its first line's gutter left of the others
 * ("9 |" over " 10 |"); a zero-width space first is not trimmed and shows nothing.
 */
function untrimmed(frame: string): string {
  return /^\s/.test(frame) ? `\u200b${frame}` : frame;
}

/** What the page posts for a browser failure. */
const BrowserFailure = v.object({ message: v.string(), stack: v.string(), page: v.string() });
export type BrowserFailure = v.InferOutput<typeof BrowserFailure>;

/** A browser failure's view, its frames resolved through the dev server's maps. */
export async function browserFailureView(
  failure: BrowserFailure,
  store: SourceMapStore,
  files: BlockOptions = projectFiles(),
): Promise<DevFailureView> {
  const frames = stackFramesOf(failure.stack);
  const resolved = await resolveEventFrames(
    { exceptions: [{ type: '', value: '', frames }], debugImages: [] },
    store,
    { projectRoot: files.root },
  );
  const stack: StackFrame[] = (resolved.exceptions[0]?.resolutions ?? []).map((resolution) =>
    resolution.resolved
      ? {
          ...(resolution.functionName ? { fn: resolution.functionName } : {}),
          file: resolution.path,
          line: resolution.line,
          column: resolution.column,
          own: !resolution.library,
        }
      : // A frame no map explains (the browser's own, an extension's) is not ours: folded.
        { file: '', line: 0, column: 0, own: false },
  );
  return devFailureView(failure.message, stack, files.readSource);
}

/** The frames of a stack, most recent first, as the inbox's events hold them. */
export function stackFramesOf(stack: string): EventFrame[] {
  const lines = stack.split('\n');
  // One engine's format per stack: V8's stack starts with the message, whose text could look
  // like a Gecko frame ("failed for db@10.0.0.1:5432:3").
  const frame = lines.some((text) => V8_FRAME.test(text)) ? V8_FRAME : GECKO_FRAME;
  const frames: EventFrame[] = [];
  for (const text of lines) {
    const match = frame.exec(text);
    if (!match) continue;
    const [, fn, filename = '', line = '0', column = '0'] = match;
    frames.push({
      filename,
      ...(fn && fn !== '<anonymous>' ? { function: fn } : {}),
      inApp: false,
      lineno: Number(line),
      colno: Number(column),
    });
  }
  return frames;
}

/** The one terminal line a browser failure prints in development. */
export function browserFailureLine(view: DevFailureView, page: string): string {
  const where = view.top ? locationOf(view.top) : 'no frame of ours';
  return `✖ browser: ${printable(view.message)} · ${where} · ${printable(page)}`;
}

/** A page's text is anyone's: no terminal escape sequence or line break reaches the terminal. */
function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is replaced
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 500);
}

/**
 * Source maps of the modules the dev server serves: `/_build/app/routes/x.tsx?tsr-split=component`
 * is asked of vite as it served it (the query picks the module), and the map's sources, which
 * vite writes relative to the module's file, are made absolute.
 */
function devServerMaps(server: ViteDevServer): SourceMapStore {
  const base = server.config.base;
  return {
    byDebugId: async () => ({ found: false, reason: NO_MAP }),
    async byChunkPath(path, url = path): Promise<MapLookup> {
      const parsed = new URL(url, 'http://dev.invalid');
      if (!parsed.pathname.startsWith(base)) return { found: false, reason: NO_MAP };
      const id = `/${parsed.pathname.slice(base.length)}${parsed.search}`;
      // A frame's URL is event data: only the project's own files are transformed for it
      // (transformRequest skips the fs.allow check vite's HTTP middleware makes).
      if (!insideProject(id, server.config.root)) return { found: false, reason: NO_MAP };
      const result = await server.transformRequest(id);
      const module = await server.moduleGraph.getModuleByUrl(id);
      const map = result?.map;
      if (!map || !('sources' in map) || !module?.file) return { found: false, reason: NO_MAP };
      const dir = dirname(module.file);
      const sources = map.sources.map((source) =>
        source ? resolve(dir, source.replace(/[?#].*$/, '')) : source,
      );
      return { found: true, map: new TraceMap(JSON.stringify({ ...map, sources })) };
    },
  };
}

/** `/app/x.tsx` (root-relative) or `/@fs/<absolute path>` under `root`; nothing climbs out. */
export function insideProject(id: string, root: string): boolean {
  const path = decodeURIComponent(id.replace(/[?#].*$/, ''));
  if (path.split('/').includes('..')) return false;
  if (!path.startsWith('/@fs/')) return true;
  return resolve(path.slice('/@fs'.length)).startsWith(`${resolve(root)}/`);
}

/** The client router's vite server's maps, under `vinxi dev` (build/dev-overlay.ts gives it). */
function devMapStore(): SourceMapStore | undefined {
  const server = devViteServer().current;
  return server ? devServerMaps(server) : undefined;
}

/** What /errors resolves browser frames with under `vinxi dev`, where no build wrote maps. */
export function devBuildMaps(): BuildMaps | undefined {
  const store = devMapStore();
  return store ? { store, projectRoot: process.cwd() } : undefined;
}

/**
 * `GET …/__dev-errors?digest=…`: a server failure's overlay. `POST …/__dev-errors` with
 * `{message, stack, page}`: a browser failure's, printed on the way.
 */
export async function answerDevErrors(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://dev.invalid');
  if (req.method === 'GET') {
    const found = serverFailures.get(url.searchParams.get('digest') ?? '');
    return found ? json(res, 200, found) : json(res, 404, { error: 'no such failure' });
  }
  if (req.method !== 'POST') return json(res, 405, { error: 'GET or POST' });
  const failure = parseBrowserFailure(await bodyOf(req));
  const store = devMapStore();
  if (!failure || !store) return json(res, 400, { error: 'expected {message, stack, page}' });
  const view = await browserFailureView(failure, store);
  console.error(browserFailureLine(view, failure.page));
  return json(res, 200, overlayErrorOf(view, `Browser: ${failure.page}`));
}

function parseBrowserFailure(body: string | undefined): BrowserFailure | undefined {
  try {
    const parsed = v.safeParse(BrowserFailure, JSON.parse(body ?? ''));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

async function bodyOf(req: IncomingMessage): Promise<string | undefined> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > MAX_BROWSER_REPORT) return undefined;
  }
  return body;
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(value));
}
