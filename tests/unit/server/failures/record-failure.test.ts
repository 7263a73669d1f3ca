import { describe, expect, it, vi } from 'vitest';
import { SERVER_FAILURE_MESSAGE } from '#app/monitoring/failure-view';
import { recordFailure, sanitiseFailure } from '#app/server/failures/record-failure.server';

describe('sanitiseFailure', () => {
  it('passes on a public error read back from a server function under its own digest, and never records it again', () => {
    // What a loader's call gets back during SSR: the serialised PublicServerError, class lost.
    const relayed = Object.assign(new Error(SERVER_FAILURE_MESSAGE), {
      name: 'ServerError',
      digest: '4e049ea182',
    });
    const errorLog = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const publicError = sanitiseFailure(relayed, 'loader');
      expect(publicError.digest).toBe('4e049ea182');
      recordFailure(publicError, { route: '/errors/', method: 'GET', url: '/errors' });
      expect(errorLog).not.toHaveBeenCalled();
    } finally {
      errorLog.mockRestore();
    }
  });

  it('gives any other error a digest of its own', () => {
    const lookalike = Object.assign(new Error('Application error'), { digest: 'not-a-digest' });
    expect(sanitiseFailure(lookalike, 'loader').digest).toMatch(/^[0-9a-f]{10}$/);
    expect(sanitiseFailure(lookalike, 'loader').digest).not.toBe('not-a-digest');
  });
});
