import { describe, expect, it } from 'vitest';
import {
  hostRefusal,
  pathRefusal,
  refusalLogLine,
  requestKind,
  serverFunctionLaneOf,
} from '#app/server/node/request-triage.server';
import {
  CLEAR_INBOX_FN,
  GET_APP_OVERVIEW_FN,
  SIGN_IN_TO_INBOX_FN,
  SIGN_OUT_OF_INBOX_FN,
} from '#tests/support/server-function-paths';

it.each([
  ['/', undefined],
  ['/errors', undefined],
  ['/errors/', undefined],
  ['/errors/0123456789abcdef0123456789abcdef', undefined],
  ['/_build/assets/client-AbC123.js', undefined],
  ['/about%20us', undefined],
  ['/caf%C3%A9', undefined],
  ['/a.b/c..d/.well-known', undefined],
  ['/errors/%', 400],
  ['/%', 400],
  ['/about/%zz', 400],
  ['/errors/%E0%A4%A', 400],
  ['/errors/%00', 400],
  ['/errors%0A[server]%20forged', 400],
  ['//errors', 404],
  ['/./errors', 404],
  ['/errors/.', 404],
  ['/errors/..', 404],
  ['/x/../errors', 404],
  ['/%2Ferrors', 404],
  ['/%2E/errors', 404],
  ['/x/%2E%2E/errors', 404],
  ['errors', 404],
  ['/\\errors', 404],
  ['/errors\\', 404],
  ['/errors%5Cx', 404],
])('%s → %s', (path, status) => {
  expect(pathRefusal(path)?.status).toBe(status);
});

describe('hostRefusal', () => {
  it.each([
    ['localhost:3000', undefined],
    ['127.0.0.1:3000', undefined],
    ['example.com', undefined],
    ['example.com.', undefined],
    ['xn--bcher-kva.example:443', undefined],
    ['[::1]:3000', undefined],
    ['[2001:db8::1]', undefined],
    ['a b', 'Bad request: invalid Host header'],
    ['a^b', 'Bad request: invalid Host header'],
    ['a|b', 'Bad request: invalid Host header'],
    ['a<b', 'Bad request: invalid Host header'],
    ['a@b', 'Bad request: invalid Host header'],
    ['a%zz', 'Bad request: invalid Host header'],
    ['a:99999', 'Bad request: invalid Host header'],
    ['a:b', 'Bad request: invalid Host header'],
    ['::1', 'Bad request: invalid Host header'],
    ['[::1', 'Bad request: invalid Host header'],
    ['[v1.x]', 'Bad request: invalid Host header'],
    ['', 'Bad request: invalid Host header'],
    [undefined, undefined],
  ])('Host %j → %j', (host, refusal) => {
    expect(hostRefusal(host, undefined)).toBe(refusal);
  });

  it('checks every X-Forwarded-Host value a proxy chain sent', () => {
    expect(hostRefusal('localhost', 'example.com, proxy.local:8080')).toBeUndefined();
    expect(hostRefusal('localhost', 'example.com, a b')).toBe(
      'Bad request: invalid X-Forwarded-Host header',
    );
    expect(hostRefusal('localhost', ['ok.example', 'a^b'])).toBe(
      'Bad request: invalid X-Forwarded-Host header',
    );
  });
});

describe('requestKind', () => {
  it.each([
    ['GET', '/about', 'page'],
    ['HEAD', '/', 'page'],
    ['GET', '/errors/abc', 'page'],
    ['POST', '/about', 'page'],
    ['GET', '/_build/assets/client.js', 'file'],
    ['POST', '/_build/assets/client.js', 'page'],
    ['GET', '/_server/abc', 'server-function'],
    ['POST', '/_server/abc', 'server-function'],
    ['GET', '/favicon.svg', 'file'],
    ['GET', '/assets/app.css', 'file'],
    ['GET', '/favicon.svg.html', 'page'],
  ])('%s %s → %s', (method, path, expected) => {
    expect(requestKind(method, path, new Set(['/favicon.svg', '/assets/app.css']))).toBe(expected);
  });
});

describe('serverFunctionLaneOf: signing in and out have places of their own', () => {
  it.each([
    [SIGN_IN_TO_INBOX_FN, 'inbox-access'],
    [`${SIGN_IN_TO_INBOX_FN}?createServerFn`, 'inbox-access'],
    [SIGN_OUT_OF_INBOX_FN, 'inbox-access'],
    [CLEAR_INBOX_FN, 'calls'],
    [GET_APP_OVERVIEW_FN, 'calls'],
    // Only the exact id: a longer one, or the same name in another file, is another function.
    [`${SIGN_IN_TO_INBOX_FN}x`, 'calls'],
    ['/_server/app_server_other_functions_ts--signInToInbox_createServerFn_handler', 'calls'],
    ['/_server/', 'calls'],
  ])('%s → %s', (path, lane) => {
    expect(serverFunctionLaneOf(path)).toBe(lane);
  });
});

describe('refusalLogLine', () => {
  it('says status, reason, method and function id on one line', () => {
    expect(refusalLogLine(405, 'PUT is not allowed here', 'PUT', 'app_fn--handler')).toBe(
      '[server-fn] 405 PUT is not allowed here: PUT app_fn--handler',
    );
  });

  it('stays one short line whatever the caller sent', () => {
    const line = refusalLogLine(400, `bad\n${'r'.repeat(5000)}`, 'POST', 'i'.repeat(5000));
    expect(line).not.toContain('\n');
    expect(line.length).toBeLessThan(900);
  });
});
