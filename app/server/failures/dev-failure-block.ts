/**
 * What a failure prints in development: a short block a person reads, where production prints
 * the one JSON line a log pipeline parses (./log-line.ts). Message, a code frame of the
 * throwing line, our frames, library frames counted not listed, the digest. Pure: the source
 * is read through `readSource`, so the block is tested without files.
 */
import type { FailureContext } from './log-line';

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

/** V8's `    at fn (file:line:col)` and `    at file:line:col`. */
const FRAME = /^\s*at (?:(.+?) \()?(?:file:\/\/)?(.+?):(\d+):(\d+)\)?$/;

/** Frames of a V8 stack; ours are files under `root` outside node_modules. */
export function framesOf(stack: string, root: string): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const text of stack.split('\n')) {
    const match = FRAME.exec(text);
    if (!match) continue;
    const [, fn, rawFile = '', line = '0', column = '0'] = match;
    // vite's module ids carry a query (`?tsr-split=component`): not part of the file.
    const file = rawFile.replace(/\?.*$/, '');
    const underRoot = file.startsWith(`${root}/`);
    const own = underRoot && !file.includes('/node_modules/');
    frames.push({
      ...(fn ? { fn } : {}),
      file: underRoot ? file.slice(root.length + 1) : file,
      line: Number(line),
      column: Number(column),
      own,
    });
  }
  return frames;
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

export function messageOf(error: unknown): string {
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
export function devFailureView(
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
export function serverFailureView(error: unknown, options: BlockOptions): DevFailureView {
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
  const view = serverFailureView(error, options);
  const where = `${context.phase} of ${context.route}${context.url ? ` (${context.method} ${context.url})` : ''}`;
  const block = [`✖ ${where} failed · digest ${digest}`, `  ${view.message}`];
  if (view.top) {
    block.push('', `  ${locationOf(view.top)}`, ...view.frame.map((line) => `  ${line}`), '');
  }
  block.push(...stackLines(view));
  return block.join('\n');
}

/** Our frames, at most OWN_FRAMES, then the count of those left out and of library frames. */
export function stackLines(view: DevFailureView): string[] {
  const lines = view.own
    .slice(0, OWN_FRAMES)
    .map((frame) => `    at ${frame.fn ? `${frame.fn} ` : ''}(${locationOf(frame)})`);
  if (view.own.length > OWN_FRAMES)
    lines.push(`    … ${view.own.length - OWN_FRAMES} more of our frames`);
  if (view.libraryFrames > 0)
    lines.push(`    + ${view.libraryFrames} library frame${view.libraryFrames === 1 ? '' : 's'}`);
  return lines;
}

export function locationOf(frame: StackFrame): string {
  return `${frame.file}:${frame.line}:${frame.column}`;
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
