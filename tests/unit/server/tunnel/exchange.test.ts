/**
 * The tunnel's words, as pure functions: what an operator reads in the log and a client in a
 * reason. Every status a client sees of the built server is proven over HTTP
 * (the tunnel's files in tests/http/, tunnel-forwarding.test.ts and its siblings).
 */
import { describe, expect, it } from 'vitest';
import {
  errorMessageOf,
  internalErrorLine,
  noAllowedDsnReason,
  tunnelLogKind,
} from '#app/server/tunnel/exchange.server';

describe('tunnel messages', () => {
  it.each([
    ['[tunnel] 400 empty envelope', 'tunnel 400'],
    ['[tunnel] 403 no allowed DSN for o=0 p=1', 'tunnel 403'],
    ['[tunnel] 500 internal error: 403 things', 'tunnel 500'],
    ['[tunnel] client closed the connection before the envelope was complete', 'tunnel'],
    ['[tunnel] 4033 odd', 'tunnel'],
  ])('rate-limits %j as the kind %j', (line, kind) => {
    expect(tunnelLogKind(line)).toBe(kind);
  });

  it.each([
    [new Error('EACCES: /srv/inbox'), 'EACCES: /srv/inbox'],
    ['a thrown string', 'a thrown string'],
    [undefined, 'undefined'],
    [Symbol('odd'), 'Symbol(odd)'],
  ])('gives the message of %s', (thrown, message) => {
    expect(errorMessageOf(thrown)).toBe(message);
  });

  it('logs a caught bug as a 500 with its message', () => {
    expect(internalErrorLine(new TypeError('x is undefined'))).toBe(
      '[tunnel] 500 internal error: x is undefined',
    );
  });

  it.each([
    [{ o: '1', p: '2' }, 'no allowed DSN for o=1 p=2'],
    [{ o: '1', p: '2', r: 'us' }, 'no allowed DSN for o=1 p=2 r=us'],
  ])('names the target of a 403: %o', (target, reason) => {
    expect(noAllowedDsnReason(target)).toBe(reason);
  });
});
