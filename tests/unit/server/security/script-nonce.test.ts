import { text } from 'node:stream/consumers';
import { ReadableStream } from 'node:stream/web';
import { describe, expect, it } from 'vitest';
import { scriptNonceTransform } from '#app/server/security/script-nonce.server';

const N = ' nonce="abc"';

/** Streams `html` in the given pieces through the rewrite. */
async function rewrite(pieces: string[]): Promise<string> {
  const bytes = pieces.map((piece) => new TextEncoder().encode(piece));
  return text(ReadableStream.from(bytes).pipeThrough(scriptNonceTransform('abc')));
}

/** Every way of cutting `html` into two pieces, and one piece per byte. */
function splits(html: string): string[][] {
  const result = [[html], [...html]];
  for (let at = 1; at < html.length; at++) result.push([html.slice(0, at), html.slice(at)]);
  return result;
}

describe('scriptNonceTransform', () => {
  it.each([
    ['<p>hi</p>', '<p>hi</p>'],
    ['<script>a()</script>', `<script${N}>a()</script>`],
    [
      '<script class=\'tsr-once\'>x</script><script type="module" async="">import(\'/a.js\')</script>',
      `<script${N} class='tsr-once'>x</script><script${N} type="module" async="">import('/a.js')</script>`,
    ],
    // Inside a script, "<script" is data, not a tag: left alone until "</script".
    ['<script>var s="<script>";</script><b>', `<script${N}>var s="<script>";</script><b>`],
    // Not a script tag.
    ['<scripts></scripts><p>&lt;script&gt;</p>', '<scripts></scripts><p>&lt;script&gt;</p>'],
    ['<script/>', `<script${N}/>`],
    ['ends with <script', 'ends with <script'],
    ['ends with <scr', 'ends with <scr'],
  ])('%j becomes %j however it is split', async (html, expected) => {
    for (const pieces of splits(html)) expect(await rewrite(pieces)).toBe(expected);
  });

  it('keeps a long page byte for byte apart from the nonces', async () => {
    const body = `<html><body>${'<p>é€</p>'.repeat(5000)}<script>1</script></body></html>`;
    const chunks = body.match(/[\s\S]{1,1000}/g) ?? [];
    expect(await rewrite(chunks)).toBe(body.replace('<script>', `<script${N}>`));
  });
});
