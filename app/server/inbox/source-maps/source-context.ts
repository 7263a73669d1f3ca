/**
 * The lines of original source around a resolved line, as Sentry shows them (its
 * pre_context/context_line/post_context). A source is indexed once by where its lines start,
 * so a frame deep in a 500 KB library source costs a lookup, not a scan from the top.
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

export class SourceLines {
  /** Offset of each line's first character; `starts[0]` is 0. */
  readonly #starts: Uint32Array;

  constructor(readonly text: string) {
    const starts = [0];
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1))
      starts.push(at + 1);
    this.#starts = Uint32Array.from(starts);
  }

  get count(): number {
    return this.#starts.length;
  }

  /** `line` is 1-based. Undefined when the source has no such line. */
  context(line: number, around = CONTEXT_LINES_AROUND): SourceContext | undefined {
    if (!Number.isSafeInteger(line) || line < 1 || line > this.count) return undefined;
    const range = (from: number, to: number) => {
      const lines: string[] = [];
      for (let n = Math.max(1, from); n <= Math.min(this.count, to); n += 1)
        lines.push(this.#line(n));
      return lines;
    };
    return {
      pre: range(line - around, line - 1),
      line: this.#line(line),
      post: range(line + 1, line + around),
    };
  }

  #line(n: number): string {
    const start = this.#starts[n - 1] ?? 0;
    const end = n < this.count ? (this.#starts[n] ?? this.text.length) - 1 : this.text.length;
    const text = this.text.slice(start, Math.min(end, start + MAX_CONTEXT_LINE + 1));
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    return line.length > MAX_CONTEXT_LINE ? `${line.slice(0, MAX_CONTEXT_LINE)}…` : line;
  }
}
