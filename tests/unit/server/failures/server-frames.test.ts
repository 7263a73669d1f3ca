/**
 * Server frames completed from their chunks' maps: the source lines around each and the original
 * name of its function, on chunks and maps our build wrote (tests/fixtures/server-chunks, the
 * sources' text inside the maps).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TraceMap } from '@jridgewell/trace-mapping';
import { describe, expect, it } from 'vitest';
import {
  MAX_SEARCHED_MAPPINGS,
  originalFacts,
  originalFunctionName,
  type SourceInChunk,
} from '#app/server/failures/server-frames.server';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/server-chunks');

function place(name: string): SourceInChunk {
  const json = readFileSync(join(FIXTURES, `${name}.mjs.map`), 'utf8');
  const map = new TraceMap(json);
  const lines = readFileSync(join(FIXTURES, `${name}.mjs.txt`), 'utf8').split('\n');
  const mappingsLength = (JSON.parse(json) as { mappings: string }).mappings.length;
  return { chunk: { map, mappingsLength, lines: () => lines }, source: map.sources[0] as string };
}

// Where Node's mapped stacks put each throw: the `new Error(…)` of the original line.
describe('originalFacts', () => {
  it.each([
    [
      'a component the bundle renamed y',
      'sentry-example-page',
      { function: 'y', lineno: 70, colno: 9 },
      'RenderBomb',
      "  throw new Error('Sentry example: render error thrown while rendering (render-secret-5e7f)');",
    ],
    [
      'a server function handler Start calls as Object.serverFn',
      'example.functions',
      { function: 'Object.serverFn', lineno: 21, colno: 11 },
      'callFailingExample',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source line as written
      '    throw new Error(`Sentry example server function failed for "${data.label}"`);',
    ],
  ])('%s: its original name and its line', (_case, chunk, frame, name, line) => {
    const facts = originalFacts(frame, [place(chunk)]);
    expect(facts.function).toBe(name);
    expect(facts.context?.line).toBe(line);
    expect(facts.context?.pre).toHaveLength(2);
    expect(facts.context?.post).toHaveLength(2);
  });

  it('keeps Node’s name when the map lists it: the bundle did not rename that function', () => {
    const frame = { function: 'callServer', lineno: 26, colno: 5 };
    expect(originalFacts(frame, [place('sentry-example-page')]).function).toBeUndefined();
  });

  it('gives the lines of a part of the file the chunk does not hold (a route’s loader)', () => {
    const facts = originalFacts({ function: 'loader', lineno: 10, colno: 11 }, [
      place('ssr-error'),
    ]);
    expect(facts.context?.line).toContain("throw new Error('Sentry example: loader failed");
    expect(facts.function).toBeUndefined();
  });

  it('takes no name from a chunk that holds other lines of the file only', () => {
    // The split component's chunk has no mapping on line 13 (the route's end), only on line 12:
    // a walk back from line 12's would name the frame after the component.
    const facts = originalFacts({ function: 'n', lineno: 13, colno: 1 }, [place('ssr-error')]);
    expect(facts.function).toBeUndefined();
  });

  it('searches no chunk whose mappings are too long to decode at a failure', () => {
    const page = place('sentry-example-page');
    const huge = { ...page, chunk: { ...page.chunk, mappingsLength: MAX_SEARCHED_MAPPINGS + 1 } };
    const facts = originalFacts({ function: 'y', lineno: 70, colno: 9 }, [huge]);
    expect(facts.function).toBeUndefined();
    // Its source lines need no decoding: they are still given.
    expect(facts.context?.line).toContain('render error thrown while rendering');
  });

  it('takes the name from the chunk where the function is, when the source is in several', () => {
    const elsewhere = place('ssr-error');
    const facts = originalFacts({ function: 'y', lineno: 70, colno: 9 }, [
      { ...elsewhere, source: place('sentry-example-page').source },
      place('sentry-example-page'),
    ]);
    expect(facts.function).toBe('RenderBomb');
  });

  it.each([
    ['no position', { function: 'y' }],
    ['a line past the source', { function: 'y', lineno: 9999, colno: 1 }],
    ['a column of zero', { function: 'y', lineno: 70, colno: 0 }],
  ])('adds nothing it cannot know: %s', (_case, frame) => {
    const facts = originalFacts(frame, [place('sentry-example-page')]);
    expect(facts.context).toBeUndefined();
  });

  it('adds nothing without a chunk that has the source', () => {
    expect(originalFacts({ function: 'y', lineno: 70, colno: 9 }, [])).toEqual({});
  });
});

describe('originalFunctionName', () => {
  it.each([
    ['a name that is not an identifier', '<anonymous>'],
    ['a minified name declared nowhere before the frame', 'zz'],
  ])('gives nothing for %s', (_case, nodeName) => {
    expect(originalFunctionName(place('sentry-example-page'), 70, 8, nodeName)).toBeUndefined();
  });

  it('reads V8’s alias form: "Module.y [as run]" is y', () => {
    expect(originalFunctionName(place('sentry-example-page'), 70, 8, 'Module.y [as run]')).toBe(
      'RenderBomb',
    );
  });
});
