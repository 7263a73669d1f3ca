/**
 * Gives every `<script>` tag of a streamed page the response's CSP nonce. Start 1.120 cannot
 * carry a nonce itself (its inline hydration scripts take no attributes), so the finished HTML
 * is rewritten as it streams, chunk by chunk, without holding the page back: one chunk out for
 * each chunk in (each is one write to the socket).
 *
 * Only real tags are touched: outside scripts React escapes every `<` in text and attributes,
 * so `<script` there is a tag; inside a script the scanner waits for `</script`, which Start's
 * serialiser always escapes in data. A tag split across two chunks is carried over.
 */

import { TransformStream, type TransformStreamDefaultController } from 'node:stream/web';

const OPEN = Buffer.from('<script');
const CLOSE = Buffer.from('</script');
/** Longest tail that could be the start of a split `<script` or `</script`. */
const CARRY = CLOSE.length - 1;

export function scriptNonceTransform(nonce: string): TransformStream<Uint8Array, Uint8Array> {
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

  const emit = (
    controller: TransformStreamDefaultController<Uint8Array>,
    parts: Buffer[],
  ): void => {
    const out = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    if (out && out.length > 0) controller.enqueue(out);
  };

  return new TransformStream({
    transform(chunk, controller) {
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      const input = carried ? Buffer.concat([carried, bytes]) : bytes;
      carried = undefined;
      emit(controller, rewrite(input, false));
    },
    flush(controller) {
      if (carried) emit(controller, rewrite(carried, true));
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
