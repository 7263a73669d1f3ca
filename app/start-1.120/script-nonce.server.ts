/**
 * Start 1.120 workaround (app/start-1.120/PATCHES.md): the response's CSP nonce on every
 * `<script>` tag of a page. Start 1.120 cannot carry a nonce itself (its inline hydration
 * scripts take no attributes), so the HTML is rewritten where it is made, in its two sources:
 * each piece the router injects (`nonceOnInjectedScripts`), and React's stream, chunk by chunk,
 * without holding the page back (`scriptNonceTransform`). Not after Start's own stream: Start
 * merges the two in a web stream of its own, and a rewriting stage after that cost a seventh of
 * a page's CPU time (decision 0605).
 *
 * Only real tags are touched: outside scripts React escapes every `<` in text and attributes,
 * so `<script` there is a tag; inside a script the scanner waits for `</script`, which Start's
 * serialiser always escapes in data. A tag split across two chunks is carried over.
 */
import { Transform } from 'node:stream';

/** What Start 1.120 keeps on the router while it renders a page (start-server-core's ssr-server). */
export interface InjectingRouter {
  serverSsr?: {
    injectedHtml: Array<Promise<string>>;
    injectHtml: (getHtml: () => string | Promise<string>) => Promise<void>;
  };
}

/**
 * Call before Start's stream transform starts reading `injectedHtml`: what is injected already
 * is rewritten in place, and what is injected from now on, as it is made.
 */
export function nonceOnInjectedScripts(router: InjectingRouter, nonce: string): void {
  const ssr = renderingStateOf(router);
  ssr.injectedHtml = ssr.injectedHtml.map((html) =>
    html.then((piece) => withScriptNonce(piece, nonce)),
  );
  const inject = ssr.injectHtml;
  ssr.injectHtml = (getHtml) => inject(async () => withScriptNonce(await getHtml(), nonce));
}

/** The router's server rendering state, which only a router rendering on the server has. */
export function renderingStateOf(
  router: InjectingRouter,
): NonNullable<InjectingRouter['serverSsr']> {
  const ssr = router.serverSsr;
  if (!ssr) throw new Error('The router has no server-side rendering state to inject into');
  return ssr;
}

const OPEN = '<script';
const CLOSE = '</script';
const OPEN_BYTES = Buffer.from(OPEN);
const CLOSE_BYTES = Buffer.from(CLOSE);

interface Scan {
  /** Where a nonce goes: just after each `<script` that is a tag. */
  tagEnds: number[];
  /** How much of the input is decided; the rest may be the start of a tag split in two. */
  settled: number;
  /** Whether the input ends inside a script (where only `</script` matters). */
  inScript: boolean;
}

/**
 * The one scan both rewrites use: outside a script `<script` followed by a tag end is a tag,
 * inside one only `</script` counts. `final`: no piece follows, so nothing is held back.
 */
function scanScriptTags(input: string | Buffer, inScript: boolean, final: boolean): Scan {
  const text = typeof input === 'string';
  const tagEnds: number[] = [];
  let at = 0;
  for (;;) {
    const needle = inScript ? CLOSE : OPEN;
    const found = text
      ? input.indexOf(needle, at)
      : input.indexOf(inScript ? CLOSE_BYTES : OPEN_BYTES, at);
    if (found === -1) break;
    const end = found + needle.length;
    // `<script` at the very end: whether it is a tag depends on the next byte.
    if (end >= input.length && !final) return { tagEnds, settled: found, inScript };
    if (inScript) inScript = false;
    else if (isTagEnd(text ? input.charCodeAt(end) : input[end])) {
      inScript = true;
      tagEnds.push(end);
    }
    at = end;
  }
  const keep = final ? 0 : partialTail(input, at, inScript ? CLOSE : OPEN);
  return { tagEnds, settled: input.length - keep, inScript };
}

/**
 * A rewriter over one stream of HTML, fed in pieces: returns each piece rewritten, keeping back
 * (and carrying into the next piece) a tail that may be the start of a tag.
 */
function nonceRewriter(nonce: string): (input: Buffer, final: boolean) => Buffer {
  const attribute = Buffer.from(` nonce="${nonce}"`);
  let inScript = false;
  let carried: Buffer | undefined;

  return (piece, final) => {
    const input = carried ? Buffer.concat([carried, piece]) : piece;
    const scan = scanScriptTags(input, inScript, final);
    inScript = scan.inScript;
    carried = scan.settled < input.length ? input.subarray(scan.settled) : undefined;
    if (scan.tagEnds.length === 0) return input.subarray(0, scan.settled);
    const parts: Buffer[] = [];
    let at = 0;
    for (const end of scan.tagEnds) {
      parts.push(input.subarray(at, end), attribute);
      at = end;
    }
    parts.push(input.subarray(at, scan.settled));
    return Buffer.concat(parts);
  };
}

/**
 * React's stream of the page, rewritten as it passes: the Node stream React pipes into anyway,
 * so the rewrite adds no stage to the page's way out (decision 0605).
 */
export function scriptNonceTransform(nonce: string): Transform {
  const rewrite = nonceRewriter(nonce);
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const out = rewrite(chunk, false);
      done(null, out.length > 0 ? out : undefined);
    },
    flush(done) {
      const out = rewrite(Buffer.alloc(0), true);
      done(null, out.length > 0 ? out : undefined);
    },
  });
}

/**
 * A complete piece of HTML (what the router injects into the page) with the nonce on its
 * scripts: the same scan as the stream's, on the string, which needs no copy into a Buffer.
 */
export function withScriptNonce(html: string, nonce: string): string {
  const { tagEnds } = scanScriptTags(html, false, true);
  if (tagEnds.length === 0) return html;
  let out = '';
  let at = 0;
  for (const end of tagEnds) {
    out += `${html.slice(at, end)} nonce="${nonce}"`;
    at = end;
  }
  return out + html.slice(at);
}

/** `<script` is a tag when a space, `>`, `/` or a line break follows (not `<scripts`). */
function isTagEnd(code: number | undefined): boolean {
  // charCodeAt past the end is NaN, a Buffer index past it undefined: neither ends a tag.
  return code === 0x20 || code === 0x3e || code === 0x2f || code === 0x0a || code === 0x09;
}

/** How many characters at the end of input[from..] are a proper prefix of needle. */
function partialTail(input: string | Buffer, from: number, needle: string): number {
  const max = Math.min(needle.length - 1, input.length - from);
  for (let length = max; length > 0; length--) {
    const tail =
      typeof input === 'string'
        ? input.slice(input.length - length)
        : input.toString('latin1', input.length - length);
    if (needle.startsWith(tail)) return length;
  }
  return 0;
}
