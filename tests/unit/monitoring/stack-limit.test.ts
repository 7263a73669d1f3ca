import type { StackFrame } from '@sentry/core';
import { describe, expect, it } from 'vitest';
import { limitStackFrames } from '#app/monitoring/stack-limit';

const framesOf = (count: number): StackFrame[] =>
  Array.from({ length: count }, (_, index) => ({ function: `frame${index}` }));

describe('limitStackFrames', () => {
  it.each([
    [0, 0],
    [10, 10],
    [50, 50],
    [51, 50],
    [101, 50],
    [500, 50],
  ])('%i parsed frames -> %i kept', (parsed, kept) => {
    const parser = limitStackFrames(() => framesOf(parsed));
    expect(parser('stack')).toHaveLength(kept);
  });

  it('keeps the frames nearest to the throw (Sentry orders frames oldest first)', () => {
    const frames = limitStackFrames(() => framesOf(101))('stack');
    expect(frames[0]?.function).toBe('frame51');
    expect(frames.at(-1)?.function).toBe('frame100');
  });

  it('passes the parser arguments through', () => {
    const calls: unknown[][] = [];
    limitStackFrames((...args) => {
      calls.push(args);
      return [];
    })('stack', 2, 1);
    expect(calls).toEqual([['stack', 2, 1]]);
  });
});
