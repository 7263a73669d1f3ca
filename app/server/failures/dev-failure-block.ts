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

/** The development block for a failure. Never throws, whatever was thrown. */
export function failureBlock(
  error: unknown,
  digest: string,
  context: FailureContext,
  options: BlockOptions,
): string {
  const frames = framesOf(stackOf(error), options.root);
  const own = frames.filter((frame) => frame.own);
  const library = frames.length - own.length;
  const where = `${context.phase} of ${context.route}${context.url ? ` (${context.method} ${context.url})` : ''}`;
  const block = [`✖ ${where} failed · digest ${digest}`, `  ${messageOf(error).split('\n')[0]}`];
  const top = own[0];
  if (top) {
    const source = safely(() => options.readSource(top.file));
    block.push('', `  ${top.file}:${top.line}:${top.column}`);
    if (source !== undefined) {
      block.push(...codeFrame(source, top.line, top.column).map((line) => `  ${line}`));
    }
    block.push('');
  }
  for (const frame of own.slice(0, OWN_FRAMES)) {
    block.push(
      `    at ${frame.fn ? `${frame.fn} ` : ''}(${frame.file}:${frame.line}:${frame.column})`,
    );
  }
  if (own.length > OWN_FRAMES) block.push(`    … ${own.length - OWN_FRAMES} more of our frames`);
  if (library > 0) block.push(`    + ${library} library frame${library === 1 ? '' : 's'}`);
  return block.join('\n');
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
