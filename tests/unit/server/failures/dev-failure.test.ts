/**
 * The dev overlay's server half: the endpoint the page posts a browser failure to (its body read
 * whole, within its bound), the failures it remembers for the page, and which module ids the dev
 * server's maps may be asked for.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ViteDevServer } from 'vite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  answerDevErrors,
  devFailureEntry,
  insideProject,
} from '#app/server/failures/dev-failure.server';
import { devViteServer } from '../../../../build/dev-overlay';

/** A request of the given method whose body arrives in exactly these pieces. */
function request(method: string, url: string, pieces: Buffer[] = []): IncomingMessage {
  return Object.assign(Readable.from(pieces), { method, url }) as unknown as IncomingMessage;
}

/** A response that keeps what was answered. */
function response() {
  const answer = { status: 0, body: '' };
  const res = {
    set statusCode(status: number) {
      answer.status = status;
    },
    setHeader: () => res,
    end: (body: string) => {
      answer.body = body;
    },
  };
  return { res: res as unknown as ServerResponse, answer };
}

/** A dev server whose maps explain no module: every frame is folded as not ours. */
const NO_MODULES = {
  config: { base: '/_build/', root: '/nowhere' },
  transformRequest: async () => null,
  moduleGraph: { getModuleByUrl: async () => undefined },
} as unknown as ViteDevServer;

describe('answerDevErrors', () => {
  afterEach(() => {
    delete devViteServer().current;
    vi.restoreAllMocks();
  });

  it('reads a browser failure whole, a character split across two pieces included', async () => {
    devViteServer().current = NO_MODULES;
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
    const body = Buffer.from(
      JSON.stringify({ message: 'Error: café ☕', stack: '', page: 'http://127.0.0.1/' }),
    );
    // Cut inside the two bytes of "é" and the three of "☕".
    const e = body.indexOf(Buffer.from('é')) + 1;
    const cup = body.indexOf(Buffer.from('☕')) + 2;
    const pieces = [body.subarray(0, e), body.subarray(e, cup), body.subarray(cup)];
    const { res, answer } = response();

    await answerDevErrors(request('POST', '/_build/__dev-errors', pieces), res);

    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).message).toBe('Error: café ☕');
    expect(printed).toHaveBeenCalledWith(
      '✖ browser: Error: café ☕ · no frame of ours · http://127.0.0.1/',
    );
  });

  it('refuses a body past its bound with 400, printing nothing', async () => {
    devViteServer().current = NO_MODULES;
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
    const stack = 'x'.repeat(64 * 1024);
    const body = Buffer.from(JSON.stringify({ message: 'Error: big', stack, page: '/' }));
    const { res, answer } = response();

    await answerDevErrors(request('POST', '/_build/__dev-errors', [body]), res);

    expect(answer.status).toBe(400);
    expect(printed).not.toHaveBeenCalled();
  });

  it('gives the page a server failure it remembers by digest, and 404 for one it does not', async () => {
    const error = new Error('loader broke');
    devFailureEntry(error, 'a1b2c3d4e5', { phase: 'loader', route: '/page', method: 'GET' });

    const known = response();
    await answerDevErrors(request('GET', '/_build/__dev-errors?digest=a1b2c3d4e5'), known.res);
    expect(known.answer.status).toBe(200);
    expect(JSON.parse(known.answer.body)).toMatchObject({
      message: 'Error: loader broke',
      stack: expect.stringMatching(/^Server: loader of \/page failed · digest a1b2c3d4e5/),
    });

    const unknown = response();
    await answerDevErrors(request('GET', '/_build/__dev-errors?digest=0000000000'), unknown.res);
    expect(unknown.answer.status).toBe(404);
  });
});

describe('insideProject', () => {
  const ROOT = '/home/dev/project';
  it.each([
    ['/app/routes/about.tsx?tsr-split=component', true],
    [`/@fs${ROOT}/app/client.tsx`, true],
    ['/node_modules/.vinxi/client/deps/react-dom_client.js?v=1a2b', true],
    ['/@fs/etc/passwd.js', false],
    [`/@fs${ROOT}/../secrets/key.js`, false],
    [`/@fs${ROOT}-other/app/triage.ts`, false],
    ['/app/%2E%2E/%2E%2E/etc/x.js', false],
  ])('%s → %s', (id, inside) => {
    expect(insideProject(id, ROOT)).toBe(inside);
  });
});
