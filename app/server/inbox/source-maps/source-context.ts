/**
 * The lines of original source around a resolved line, as Sentry shows them (its
 * pre_context/context_line/post_context). Found by scanning for line breaks, not by splitting
 * the whole source: a library's source can be megabytes and we need five lines of it.
 */

export interface SourceContext {
  pre: string[];
  line: string;
  post: string[];
}

/** Five lines in all: two before, the line, two after. */
export const CONTEXT_LINES_AROUND = 2;
/** A minified library's source is one huge line: show its start, not all of it. */
export const MAX_CONTEXT_LINE = 240;

/** `line` is 1-based. Undefined when the source has no such line. */
export function sourceContext(
  source: string,
  line: number,
  around = CONTEXT_LINES_AROUND,
): SourceContext | undefined {
  const first = Math.max(1, line - around);
  const lines: string[] = [];
  let start = 0;
  for (let current = 1; current <= line + around; current += 1) {
    if (start > source.length) break;
    const breakAt = source.indexOf('\n', start);
    const end = breakAt === -1 ? source.length : breakAt;
    if (current >= first) lines.push(clipped(source.slice(start, end)));
    start = end + 1;
  }
  const index = line - first;
  const text = lines[index];
  if (text === undefined) return undefined;
  return { pre: lines.slice(0, index), line: text, post: lines.slice(index + 1) };
}

function clipped(line: string): string {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  return text.length > MAX_CONTEXT_LINE ? `${text.slice(0, MAX_CONTEXT_LINE)}…` : text;
}
