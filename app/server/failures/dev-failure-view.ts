/**
 * Development's view of a failure (decision 0970): the message, where our code threw with a code
 * frame, our frames, and how many library frames were folded away. Shown three ways: the
 * terminal block of a server failure, the terminal line of a browser failure, and vite's error
 * overlay. Pure: a source is read through `readSource`, and a browser stack is resolved through
 * the source maps it is given (./dev-failure.server.ts serves the dev server's). Production has
 * none of it: there a failure is the JSON line a log pipeline parses (./record-failure.server.ts).
 */
import { codeFrameColumns } from '@babel/code-frame';
import { nodeStackLineParser } from '@sentry/core/server';
import * as v from 'valibot';
import { GECKO_FRAME, V8_FRAME } from '#app/monitoring/recorder/minimal-envelope';
import type { StackFrame as EventFrame } from '#app/server/inbox/inbox-event';
import type { SourceMapStore } from '#app/server/inbox/source-maps/map-store.server';
import { resolveEventFrames } from '#app/server/inbox/source-maps/resolve-frame';
import type { FailureContext } from './record-failure.server';

/** At most this many of our own frames; a deeper stack says how many more. */
const OWN_FRAMES = 8;
/** Lines of source either side of the throwing line. */
const CONTEXT_LINES = 2;

/** A frame as development shows it: where, and whether it is ours or a library's. */
export interface ShownFrame {
  fn?: string;
  /** Project-relative when the file is under the project's root, otherwise as the stack gave it. */
  file: string;
  line: number;
  column: number;
  own: boolean;
}

/** The project whose frames are ours, and how its files are read. */
export interface ProjectFiles {
  /** The project's root: frames under it (outside node_modules) are ours. */
  root: string;
  /** A project-relative file's text, or undefined when it cannot be read. */
  readSource(file: string): string | undefined;
}

/** What development shows of a failure, in the terminal and in the browser's overlay. */
export interface DevFailureView {
  message: string;
  /** Our frame nearest the throw. */
  top?: ShownFrame;
  /** The code frame around `top`, when its source could be read. */
  frame: string[];
  own: ShownFrame[];
  libraryFrames: number;
}

/** Sentry's line parser for Node's stacks (V8's format), as the server's own reports use it. */
const [, parseNodeLine] = nodeStackLineParser();

/**
 * Frames of a server stack, most recent first; ours are files under `root` outside
 * node_modules. Only the `at` lines are read: the message above them may hold anything.
 */
export function framesOf(stack: string, root: string): ShownFrame[] {
  const frames: ShownFrame[] = [];
  for (const text of stack.split('\n')) {
    if (!/^\s*at /.test(text)) continue;
    const parsed = parseNodeLine(text);
    if (!parsed) continue;
    // vite's module ids carry a query (`?tsr-split=component`): not part of the file.
    const file = (parsed.filename ?? '').replace(/\?.*$/, '');
    const underRoot = file.startsWith(`${root}/`);
    frames.push({
      ...(parsed.function && parsed.function !== '?' ? { fn: parsed.function } : {}),
      file: underRoot ? file.slice(root.length + 1) : file,
      line: parsed.lineno ?? 0,
      column: parsed.colno ?? 0,
      own: underRoot && !file.includes('/node_modules/'),
    });
  }
  return frames;
}

/**
 * The frames of a browser's stack, most recent first, as the inbox's events hold them. Read
 * with the recorder's own two line patterns, so development reads a stack as the page's recorder
 * does (Sentry's browser parsers live in @sentry/browser, which the server does not load).
 */
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

/** Lines around `line` with a marker under `column`, as vite's and Next.js's overlays show. */
export function codeFrame(source: string, line: number, column: number): string[] {
  const frame = codeFrameColumns(
    source,
    { start: { line, column } },
    { linesAbove: CONTEXT_LINES, linesBelow: CONTEXT_LINES, highlightCode: false },
  );
  return frame === '' ? [] : frame.split('\n');
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

/** A view of frames already parsed (and, for the browser's, resolved through source maps). */
function devFailureView(
  message: string,
  frames: readonly ShownFrame[],
  readSource: ProjectFiles['readSource'],
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
export function serverFailureView(error: unknown, files: ProjectFiles): DevFailureView {
  return devFailureView(messageOf(error), framesOf(stackOf(error), files.root), files.readSource);
}

/** What the page posts for a browser failure. */
export const BrowserFailure = v.object({
  message: v.string(),
  stack: v.string(),
  page: v.string(),
});
export type BrowserFailure = v.InferOutput<typeof BrowserFailure>;

/** A browser failure's view, its frames resolved through the given maps. */
export async function browserFailureView(
  failure: BrowserFailure,
  store: SourceMapStore,
  files: ProjectFiles,
): Promise<DevFailureView> {
  const frames = stackFramesOf(failure.stack);
  const resolved = await resolveEventFrames(
    { exceptions: [{ type: '', value: '', frames }], debugImages: [] },
    store,
    { projectRoot: files.root },
  );
  const stack: ShownFrame[] = (resolved.exceptions[0]?.resolutions ?? []).map((resolution) =>
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

/** The development block for a server failure. Never throws, whatever was thrown. */
export function failureBlock(
  error: unknown,
  digest: string,
  context: FailureContext,
  files: ProjectFiles,
): string {
  return blockOf(serverFailureView(error, files), digest, context);
}

/** The terminal block of a server failure's view: where, the message, the code frame, the stack. */
export function blockOf(view: DevFailureView, digest: string, context: FailureContext): string {
  const where = `${context.phase} of ${context.route}${context.url ? ` (${context.method} ${context.url})` : ''}`;
  const block = [`✖ ${where} failed · digest ${digest}`, `  ${view.message}`];
  if (view.top) {
    block.push('', `  ${locationOf(view.top)}`, ...view.frame.map((line) => `  ${line}`), '');
  }
  block.push(...stackLines(view));
  return block.join('\n');
}

/** The one terminal line a browser failure prints in development. */
export function browserFailureLine(view: DevFailureView, page: string): string {
  const where = view.top ? locationOf(view.top) : 'no frame of ours';
  return `✖ browser: ${printable(view.message)} · ${where} · ${printable(page)}`;
}

/** The overlay's input: vite's `ErrorPayload['err']`. */
export interface OverlayError {
  message: string;
  stack: string;
  frame?: string;
  loc?: { file: string; line: number; column: number };
}

/** What vite's overlay shows of a view, under `heading`. */
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

function locationOf(frame: ShownFrame): string {
  return `${frame.file}:${frame.line}:${frame.column}`;
}

/**
 * vite's overlay trims the code frame, which shifts its first line's gutter left of the others
 * ("9 |" over " 10 |"); a zero-width space first is not trimmed and shows nothing.
 */
function untrimmed(frame: string): string {
  return /^\s/.test(frame) ? `\u200b${frame}` : frame;
}

/** A page's text is anyone's: no terminal escape sequence or line break reaches the terminal. */
function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is replaced
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 500);
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
