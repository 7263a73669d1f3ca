/**
 * Gives every `<script>` tag of a streamed page the response's CSP nonce. Start 1.120 cannot
 * carry a nonce itself (its inline hydration scripts take no attributes), so the HTML is
 * rewritten as it streams, in its two sources: React's stream, chunk by chunk, without holding
 * the page back (one chunk out for each chunk in), and each piece the router injects into it
 * (injected-script-nonce.server.ts).
 *
 * Only real tags are touched: outside scripts React escapes every `<` in text and attributes,
 * so `<script` there is a tag; inside a script the scanner waits for `</script`, which Start's
 * serialiser always escapes in data. A tag split across two chunks is carried over.
 */

import { Transform } from 'node:stream';

const OPEN = Buffer.from('<script');
const CLOSE = Buffer.from('</script');
/** Longest tail that could be the start of a split `<script` or `</script`. */
const CARRY = CLOSE.length - 1;

/**
 * A scanner over one stream of HTML, fed in pieces: returns each piece rewritten, keeping back
 * (and carrying into the next piece) a tail that may be the start of a tag.
 */
function nonceRewriter(nonce: string): (input: Buffer, final: boolean) => Buffer {
  const attribute = Buffer.from(` nonce="${nonce}"`);
  let inScript = false;
  let carried: Buffer | undefined;

  const rewrite = (piece: Buffer, final: boolean): Buffer[] => {
    const input = carried ? Buffer.concat([carried, piece]) : piece;
    carried = undefined;
    const out: Buffer[] = [];
    let at = 0;
    for (;;) {
      const needle = inScript ? CLOSE : OPEN;
      const found = input.indexOf(needle, at);
      if (found === -1) break;
      const end = found + needle.length;
      if (end >= input.length && !final) {
        // `<script` at the very end: whether it is a tag depends on the next byte.
        out.push(input.subarray(at, found));
        carried = input.subarray(found);
        return out;
      }
      if (inScript) {
        inScript = false;
        out.push(input.subarray(at, end));
      } else if (isTagEnd(input[end])) {
        inScript = true;
        out.push(input.subarray(at, end), attribute);
      } else {
        out.push(input.subarray(at, end));
      }
      at = end;
    }
    // Keep back a tail that might be the beginning of the next tag.
    const keep = final ? 0 : partialTail(input, at, inScript ? CLOSE : OPEN);
    out.push(input.subarray(at, input.length - keep));
    carried = keep > 0 ? input.subarray(input.length - keep) : undefined;
    return out;
  };

  return (piece, final) => {
    const parts = rewrite(piece, final);
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  };
}

/**
 * React's stream of the page, rewritten as it passes: the Node stream React pipes into anyway,
 * so the rewrite adds no stage to the page's way out (decision 0850).
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
  let out = '';
  let at = 0;
  let inScript = false;
  for (;;) {
    const needle = inScript ? '</script' : '<script';
    const found = html.indexOf(needle, at);
    if (found === -1) break;
    const end = found + needle.length;
    out += html.slice(at, end);
    if (inScript) inScript = false;
    else if (isTagEnd(html.charCodeAt(end))) {
      inScript = true;
      out += ` nonce="${nonce}"`;
    }
    at = end;
  }
  return at === 0 ? html : out + html.slice(at);
}

/** `<script` is a tag when a space, `>`, `/` or a line break follows (not `<scripts`). */
function isTagEnd(byte: number | undefined): boolean {
  // charCodeAt past the end is NaN, a Buffer index past it undefined: neither ends a tag.
  return byte === 0x20 || byte === 0x3e || byte === 0x2f || byte === 0x0a || byte === 0x09;
}

/** How many bytes at the end of input[from..] are a proper prefix of needle. */
function partialTail(input: Buffer, from: number, needle: Buffer): number {
  const max = Math.min(CARRY, needle.length - 1, input.length - from);
  for (let length = max; length > 0; length--) {
    if (input.compare(needle, 0, length, input.length - length) === 0) return length;
  }
  return 0;
}
