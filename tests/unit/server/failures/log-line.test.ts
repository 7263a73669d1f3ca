import { describe, expect, it } from 'vitest';
import { failureLogLine } from '#app/server/failures/log-line';

const context = { phase: 'loader', route: '/r', method: 'GET', url: '/r?q=1' } as const;
const now = new Date('2026-01-02T03:04:05.000Z');

describe('failureLogLine', () => {
  it('is one line of JSON with level, digest, route, method, message and stack', () => {
    const error = new Error('boom');
    const line = failureLogLine(error, 'abc', context, now);
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      level: 'error',
      time: '2026-01-02T03:04:05.000Z',
      digest: 'abc',
      phase: 'loader',
      route: '/r',
      method: 'GET',
      url: '/r?q=1',
      name: 'Error',
      message: 'boom',
      stack: error.stack,
    });
  });

  it('names the worker that met it when the server runs several', () => {
    const record = JSON.parse(failureLogLine(new Error('boom'), 'abc', context, now, 2));
    expect(record).toMatchObject({ digest: 'abc', worker: 2, route: '/r' });
    expect(JSON.parse(failureLogLine(new Error('boom'), 'abc', context, now))).not.toHaveProperty(
      'worker',
    );
  });

  it.each([
    ['a string', 'boom', 'string', 'boom'],
    ['null', null, 'object', 'null'],
    ['an object', { a: 1 }, 'object', '[object Object]'],
  ])('describes %s', (_name, thrown, name, message) => {
    const record = JSON.parse(failureLogLine(thrown, 'd', context, now));
    expect(record).toMatchObject({ name, message, digest: 'd', level: 'error' });
  });
});
