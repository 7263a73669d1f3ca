import { describe, expect, it } from 'vitest';
import { describeFailure, SERVER_FAILURE_MESSAGE } from '#app/monitoring/failure-view';

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
