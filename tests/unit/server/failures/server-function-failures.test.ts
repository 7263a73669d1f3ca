import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  describeInvalidInput,
  invalidInputIssues,
} from '#app/server/failures/server-function-failures';

const Input = v.object({
  page: v.pipe(v.number(), v.minValue(1)),
  nested: v.optional(v.object({ name: v.literal('x') })),
});

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

// What Start 1.120's execValidator throws for a schema passed to `.validator()`.
function standardSchemaError(input: unknown): Error {
  const result = Input['~standard'].validate(input);
  if (result instanceof Promise || !result.issues) throw new Error('expected sync issues');
  return new Error(JSON.stringify(result.issues, undefined, 2));
}

describe('invalidInputIssues: validator failures, and nothing else', () => {
  it('reads the issues of v.parse (a validator function)', () => {
    const error = thrownBy(() => v.parse(Input, { page: 0, nested: { name: 'y' } }));
    expect(invalidInputIssues(error)).toEqual([
      { path: 'page', message: 'Invalid value: Expected >=1 but received 0' },
      { path: 'nested.name', message: 'Invalid type: Expected "x" but received "y"' },
    ]);
  });

  it('reads the issues of a schema passed to .validator() (Start’s JSON message)', () => {
    expect(invalidInputIssues(standardSchemaError({ page: 0 }))).toEqual([
      { path: 'page', message: 'Invalid value: Expected >=1 but received 0' },
    ]);
  });

  it('gives the input as a whole an empty path', () => {
    expect(invalidInputIssues(thrownBy(() => v.parse(Input, undefined)))).toEqual([
      { path: '', message: 'Invalid type: Expected Object but received undefined' },
    ]);
  });

  it('reads a BigInt input as invalid input: Start fails to write its issues as JSON', () => {
    const error = thrownBy(() => JSON.stringify({ input: 1n }));
    expect(invalidInputIssues(error)).toEqual([
      { path: '', message: 'a BigInt, which no input here takes' },
    ]);
  });

  it.each([
    ['an ordinary error', new Error('database down')],
    ['another TypeError', new TypeError('x is not a function')],
    ['an error whose message is a JSON array of other things', new Error('[1, 2]')],
    ['an error whose message only starts like JSON', new Error('[db] down')],
    ['an empty JSON array', new Error('[]')],
    ['a subclass with a JSON message', new TypeError('[{"message":"x"}]')],
    ['a thrown string', '[{"message":"x"}]'],
    ['undefined', undefined],
  ])('is undefined for %s', (_, error) => {
    expect(invalidInputIssues(error)).toBeUndefined();
  });
});

describe('describeInvalidInput: one short line', () => {
  it('names path and message', () => {
    expect(describeInvalidInput([{ path: 'page', message: 'too small' }])).toBe(
      'invalid input: page: too small',
    );
    expect(describeInvalidInput([{ path: '', message: 'not an object' }])).toBe(
      'invalid input: not an object',
    );
  });

  it('stays short when a message repeats a huge input value', () => {
    const huge = 'x'.repeat(2 * 1024 * 1024);
    const error = thrownBy(() => v.parse(Input, { page: 1, nested: { name: huge } }));
    const text = describeInvalidInput(invalidInputIssues(error) ?? []);
    expect(text.length).toBeLessThan(400);
    expect(text).toContain('nested.name: Invalid type: Expected "x" but received "xxx');
  });

  it('shows three issues and counts the rest, on one line', () => {
    const issues = Array.from({ length: 5 }, (_, i) => ({ path: `f${i}`, message: 'bad\nvalue' }));
    const text = describeInvalidInput(issues);
    expect(text).toBe('invalid input: f0: bad value; f1: bad value; f2: bad value (and 2 more)');
  });
});
