import { describe, expect, it } from 'vitest';
import {
  CLIENT_FAILURE_MESSAGE,
  describeFailure,
  SERVER_FAILURE_MESSAGE,
} from '#app/monitoring/failure-view';

const withDigest = Object.assign(new Error('db password is hunter2'), { digest: 'abc123def0' });

describe('describeFailure', () => {
  it.each([
    ['an Error', new Error('boom'), 'client', undefined],
    ['a server error with digest', withDigest, 'server', 'abc123def0'],
    ['a plain object with digest', { digest: '0123456789' }, 'server', '0123456789'],
    ['a thrown string', 'boom', 'client', undefined],
    ['null', null, 'client', undefined],
    ['undefined', undefined, 'client', undefined],
    ['an object without message', { code: 42 }, 'client', undefined],
    ['a digest that is not hex', { digest: '<script>' }, 'client', undefined],
    ['a digest that is not a string', { digest: 1234567 }, 'client', undefined],
  ])('%s is a %s-side failure', (_name, error, side, digest) => {
    const view = describeFailure(error);
    expect(view.side).toBe(side);
    expect(view.message).toBe(side === 'server' ? SERVER_FAILURE_MESSAGE : CLIENT_FAILURE_MESSAGE);
    expect(view.digest).toBe(digest);
  });

  it("never gives the error text (development shows it in vite's overlay, not on the page)", () => {
    for (const error of [withDigest, new Error('db password is hunter2')])
      expect(JSON.stringify(describeFailure(error))).not.toContain('hunter2');
  });

  it('survives an error whose fields throw when read', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('no reading');
        },
      },
    );
    expect(describeFailure(hostile).side).toBe('client');
  });
});

describe('describeFailure with the digest of a server render failure', () => {
  it.each([
    ['an error without a digest is that failure', new Error('x'), 'server', '1129046e5f'],
    ['an error with its own digest keeps it', { digest: '0a1b2c3d4e' }, 'server', '0a1b2c3d4e'],
  ])('%s', (_name, error, side, digest) => {
    const view = describeFailure(error, '1129046e5f');
    expect(view).toMatchObject({ side, digest, message: SERVER_FAILURE_MESSAGE });
  });

  it('without one, an error without a digest is a client failure', () => {
    expect(describeFailure(new Error('x'), undefined)).toMatchObject({ side: 'client' });
  });
});
