/**
 * Gives every `<script>` tag of a streamed page the response's CSP nonce. Start 1.120 cannot
 * carry a nonce itself (its inline hydration scripts take no attributes), so the finished HTML
 * is rewritten as it streams, chunk by chunk, without holding the page back.
 *
 * Only real tags are touched: outside scripts React escapes every `<` in text and attributes,
 * so `<script` there is a tag; inside a script the scanner waits for `</script`, which Start's
 * serialiser always escapes in data. A tag split across two chunks is carried over.
 */
import { Transform, type TransformCallback } from 'node:stream';

const OPEN = Buffer.from('<script');
const CLOSE = Buffer.from('</script');
/** Longest tail that could be the start of a split `<script` or `</script`. */
const CARRY = CLOSE.length - 1;

export function scriptNonceStream(nonce: string): Transform {
  const attribute = Buffer.from(` nonce="${nonce}"`);
  let inScript = false;
  let carried: Buffer | undefined;

  const rewrite = (input: Buffer, final: boolean): Buffer[] => {
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

  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      const input = carried ? Buffer.concat([carried, chunk]) : chunk;
      carried = undefined;
      for (const part of rewrite(input, false)) if (part.length > 0) this.push(part);
      callback();
    },
    flush(callback: TransformCallback) {
      if (carried) for (const part of rewrite(carried, true)) if (part.length > 0) this.push(part);
      callback();
    },
  });
}

/** `<script` is a tag when a space, `>`, `/` or a line break follows (not `<scripts`). */
function isTagEnd(byte: number | undefined): boolean {
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
