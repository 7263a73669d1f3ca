import { describe, expect, it } from 'vitest';
import { EVENT_LIMITS, normaliseEvent } from '#app/server/inbox/normalise-event';
import { errorEvent } from '#tests/fixtures/inbox-envelopes';

type Json = Record<string, unknown>;

/** A value nested `depth` levels deep, built without recursion. */
function nested(depth: number): Json {
  let value: Json = { leaf: true };
  for (let level = 0; level < depth; level++) value = { next: value };
  return value;
}

/** The same, as it arrives: parsed from JSON text (JSON.parse itself copes with the depth). */
function parsedNested(depth: number): unknown {
  return JSON.parse(`${'{"next":'.repeat(depth)}{"leaf":true}${'}'.repeat(depth)}`);
}

function frames(count: number): Json[] {
  return Array.from({ length: count }, (_, n) => ({ function: `f${n}`, lineno: n }));
}

function withFrames(list: Json[]): Json {
  return { exception: { values: [{ type: 'Error', value: 'x', stacktrace: { frames: list } }] } };
}

const framesOf = (event: Json) =>
  (event as { exception: { values: Array<{ stacktrace: { frames: Json[] } }> } }).exception
    .values[0]?.stacktrace.frames ?? [];

const long = (length: number) => 'x'.repeat(length);
const cut = (max: number) => `${long(max)}...`;

describe('normaliseEvent', () => {
  it('leaves an ordinary SDK event exactly as it was', () => {
    const event = errorEvent({ digest: 'd1' });
    expect(JSON.stringify(normaliseEvent(event))).toBe(JSON.stringify(event));
  });

  it.each([
    { given: 10, kept: 10 },
    { given: 50, kept: 50 },
    { given: 51, kept: 50 },
    { given: 349_000, kept: 50 },
  ])('keeps $kept of $given frames', ({ given, kept }) => {
    expect(framesOf(normaliseEvent(withFrames(frames(given))))).toHaveLength(kept);
  });

  it('keeps the frames nearest the throw: the last ones, oldest first', () => {
    const result = framesOf(normaliseEvent(withFrames(frames(349_000))));
    expect(result[0]).toEqual({ function: 'f348950', lineno: 348950 });
    expect(result[49]).toEqual({ function: 'f348999', lineno: 348999 });
  });

  it('bounds a message event stack and thread stacks too', () => {
    const event = normaliseEvent({
      stacktrace: { frames: frames(1000) },
      threads: { values: [{ id: 1, stacktrace: { frames: frames(1000) } }] },
    });
    expect((event.stacktrace as { frames: Json[] }).frames).toHaveLength(50);
    const threads = event.threads as { values: Array<{ stacktrace: { frames: Json[] } }> };
    expect(threads.values[0]?.stacktrace.frames).toHaveLength(50);
  });

  it('keeps the thrown exception and its 5 nearest causes', () => {
    const values = Array.from({ length: 100 }, (_, n) => ({ type: `E${n}`, value: `${n}` }));
    const event = normaliseEvent({ exception: { values } });
    const kept = (event.exception as { values: Json[] }).values.map((value) => value.type);
    expect(kept).toEqual(['E94', 'E95', 'E96', 'E97', 'E98', 'E99']);
  });

  it.each([
    { shape: 'a list', wrap: (list: Json[]) => list, unwrap: (value: unknown) => value },
    {
      shape: '{ values }',
      wrap: (list: Json[]) => ({ values: list }),
      unwrap: (value: unknown) => (value as { values: unknown }).values,
    },
  ])('keeps the newest 100 of 1,000 breadcrumbs given as $shape', ({ wrap, unwrap }) => {
    const crumbs = Array.from({ length: 1000 }, (_, n) => ({ message: `crumb ${n}` }));
    const kept = unwrap(normaliseEvent({ breadcrumbs: wrap(crumbs) }).breadcrumbs) as Json[];
    expect(kept).toHaveLength(100);
    expect(kept[0]?.message).toBe('crumb 900');
    expect(kept[99]?.message).toBe('crumb 999');
  });

  it.each([
    {
      field: 'the exception value',
      event: { exception: { values: [{ type: 'Error', value: long(100_000) }] } },
      read: (e: Json) => (e.exception as { values: Json[] }).values[0]?.value,
      expected: cut(8192),
    },
    {
      field: 'the exception type',
      event: { exception: { values: [{ type: long(5000), value: 'v' }] } },
      read: (e: Json) => (e.exception as { values: Json[] }).values[0]?.type,
      expected: cut(256),
    },
    {
      field: 'a frame function',
      event: withFrames([{ function: long(5000), filename: 'a.js' }]),
      read: (e: Json) => framesOf(e)[0]?.function,
      expected: cut(256),
    },
    {
      field: 'the message',
      event: { message: long(100_000) },
      read: (e: Json) => e.message,
      expected: cut(8192),
    },
    {
      field: 'a breadcrumb message',
      event: { breadcrumbs: [{ message: long(100_000) }] },
      read: (e: Json) => (e.breadcrumbs as Json[])[0]?.message,
      expected: cut(8192),
    },
    {
      field: 'a breadcrumb category',
      event: { breadcrumbs: [{ category: long(1000) }] },
      read: (e: Json) => (e.breadcrumbs as Json[])[0]?.category,
      expected: cut(128),
    },
    {
      field: 'a tag value',
      event: { tags: { key: long(1000) } },
      read: (e: Json) => (e.tags as Json).key,
      expected: cut(200),
    },
    {
      field: 'the page URL',
      event: { request: { url: long(100_000) } },
      read: (e: Json) => (e.request as Json).url,
      expected: cut(8192),
    },
    {
      field: 'a value in extra',
      event: { extra: { note: long(100_000) } },
      read: (e: Json) => (e.extra as Json).note,
      expected: cut(8192),
    },
  ])('cuts a long string in $field', ({ event, read, expected }) => {
    expect(read(normaliseEvent(event))).toBe(expected);
  });

  it.each([
    { depth: 100_000, build: nested },
    { depth: 100_000, build: parsedNested },
    { depth: 1_000_000, build: parsedNested },
  ])(
    'keeps breadcrumb data nested $depth deep to depth 3, without throwing',
    ({ depth, build }) => {
      const event = normaliseEvent({ breadcrumbs: [{ message: 'deep', data: build(depth) }] });
      const crumb = (event.breadcrumbs as Json[])[0];
      expect(crumb?.data).toEqual({ next: { next: { next: '[Object]' } } });
      // What the detail view does with it: it must serialise.
      expect(() => JSON.stringify(event)).not.toThrow();
    },
  );

  it.each(['extra', 'contexts', 'user', 'request', 'anything_else'])(
    'keeps %s to depth 3 however deep it is sent',
    (field) => {
      const event = normaliseEvent({ [field]: parsedNested(100_000) });
      expect(event[field]).toEqual({ next: { next: { next: '[Object]' } } });
    },
  );

  it('keeps a deep exception value, message and frame from throwing', () => {
    const deep = parsedNested(100_000);
    const event = normaliseEvent({
      message: deep,
      exception: { values: [{ type: deep, value: deep, stacktrace: { frames: [deep] } }] },
      tags: { deep },
    });
    expect(() => JSON.stringify(event)).not.toThrow();
    expect(event.tags).toEqual({});
  });

  it('keeps at most 1,000 properties of an object, as the SDK does', () => {
    const wide = Object.fromEntries(Array.from({ length: 5000 }, (_, n) => [`k${n}`, n]));
    const extra = normaliseEvent({ extra: { wide } }).extra as { wide: Json };
    expect(Object.keys(extra.wide)).toHaveLength(EVENT_LIMITS.breadth + 1);
    expect(extra.wide.k1000).toBe('[MaxProperties ~]');
  });

  it('drops breadcrumb data entries past 2,048 bytes', () => {
    const data = Object.fromEntries(Array.from({ length: 100 }, (_, n) => [`k${n}`, long(100)]));
    const crumb = (normaliseEvent({ breadcrumbs: [{ data }] }).breadcrumbs as Json[])[0];
    const kept = crumb?.data as Json;
    expect(JSON.stringify(kept).length).toBeLessThanOrEqual(2048);
    expect(Object.keys(kept).length).toBeGreaterThan(10);
    expect(kept.k0).toBe(long(100));
  });

  it('keeps only string, number and boolean tags, as text', () => {
    const event = normaliseEvent({
      tags: { a: 'x', b: 2, c: true, d: null, e: { toString: 1 }, f: ['y'] },
    });
    expect(event.tags).toEqual({ a: 'x', b: '2', c: 'true' });
    const pairs = normaliseEvent({ tags: [['a', 'x'], ['b', { toString: 1 }], 'junk'] });
    expect(pairs.tags).toEqual([['a', 'x']]);
  });

  it('keeps a "__proto__" key as a plain key, never as a prototype', () => {
    const event = normaliseEvent(JSON.parse('{"__proto__":{"polluted":1},"level":"error"}'));
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
    expect((event as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(event)).toContain('__proto__');
  });
});
