/**
 * The nonce on a page's scripts: React's stream rewritten as it passes, a whole piece of HTML,
 * and what the router injects.
 */

import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import {
  nonceOnInjectedScripts,
  scriptNonceTransform,
  withScriptNonce,
} from '#app/start-1.120/script-nonce.server';

const N = ' nonce="abc"';

const CASES: Array<[string, string]> = [
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
];

/** Streams `html` in the given pieces through the rewrite. */
async function rewrite(pieces: string[]): Promise<string> {
  const bytes = pieces.map((piece) => Buffer.from(piece));
  return text(Readable.from(bytes).pipe(scriptNonceTransform('abc')));
}

/** Every way of cutting `html` into two pieces, and one piece per byte. */
function splits(html: string): string[][] {
  const result = [[html], [...html]];
  for (let at = 1; at < html.length; at++) result.push([html.slice(0, at), html.slice(at)]);
  return result;
}

describe('scriptNonceTransform: React stream of the page', () => {
  it.each(CASES)('%j becomes %j however it is split', async (html, expected) => {
    for (const pieces of splits(html)) expect(await rewrite(pieces)).toBe(expected);
  });

  it('keeps a long page byte for byte apart from the nonces', async () => {
    const body = `<html><body>${'<p>é€</p>'.repeat(5000)}<script>1</script></body></html>`;
    const chunks = body.match(/[\s\S]{1,1000}/g) ?? [];
    expect(await rewrite(chunks)).toBe(body.replace('<script>', `<script${N}>`));
  });
});

describe('withScriptNonce: a whole piece of HTML', () => {
  it.each(CASES)('%j becomes %j', (html, expected) => {
    expect(withScriptNonce(html, 'abc')).toBe(expected);
  });
});

describe('nonceOnInjectedScripts: what the router injects into the page', () => {
  /** Start 1.120's injectHtml, as start-server-core's ssr-server makes it. */
  function fakeRouter() {
    const emitted: Array<Promise<string>> = [];
    const serverSsr = {
      injectedHtml: [] as Array<Promise<string>>,
      injectHtml: (getHtml: () => string | Promise<string>) => {
        const promise = Promise.resolve().then(getHtml);
        serverSsr.injectedHtml.push(promise);
        emitted.push(promise);
        return promise.then(() => {});
      },
    };
    return { router: { serverSsr }, emitted };
  }

  it('rewrites what was injected before and what is injected after, and nothing else', async () => {
    const { router, emitted } = fakeRouter();
    await router.serverSsr.injectHtml(() => "<script class='tsr-once'>boot()</script>");
    nonceOnInjectedScripts(router, 'abc');
    await router.serverSsr.injectHtml(async () => '<script>var s="<script>";</script>');
    await router.serverSsr.injectHtml(() => '<p>no script</p>');

    expect(await Promise.all(router.serverSsr.injectedHtml)).toEqual([
      `<script${N} class='tsr-once'>boot()</script>`,
      `<script${N}>var s="<script>";</script>`,
      '<p>no script</p>',
    ]);
    // What Start's stream transform hears of as it is injected: rewritten too.
    expect(await Promise.all(emitted.slice(1))).toEqual([
      `<script${N}>var s="<script>";</script>`,
      '<p>no script</p>',
    ]);
  });
});
