import { describe, expect, it } from 'vitest';
import { EVENT_LIMITS, normaliseEvent } from '#app/server/inbox/normalise-event';
import { errorEvent } from '#tests/fixtures/inbox-envelopes';
import { javaThreadEvent, pythonLogEvent } from '#tests/fixtures/real-envelopes';

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
/** What Relay leaves of a long string: `max` characters in all, ending in "...". */
const cut = (max: number) => `${long(max - 3)}...`;

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
      read: (e: Json) => (e.logentry as Json).formatted,
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
    'keeps breadcrumb data nested $depth deep to depth 5, the rest as cut JSON text',
    ({ depth, build }) => {
      const event = normaliseEvent({ breadcrumbs: [{ message: 'deep', data: build(depth) }] });
      const data = (event.breadcrumbs as Json[])[0]?.data as Json;
      const fourth = ((data.next as Json).next as Json).next as Json;
      expect(typeof fourth.next).toBe('string');
      expect(fourth.next).toMatch(/^\{"next":\{"next":.*\.\.\.$/);
      expect((fourth.next as string).length).toBeLessThanOrEqual(2048);
      // What the detail view does with it: it must serialise.
      expect(() => JSON.stringify(event)).not.toThrow();
    },
  );

  it.each([
    { field: 'extra', depth: 7 },
    { field: 'request', depth: 7 },
    { field: 'user', depth: 7 },
  ])('keeps $field to depth $depth however deep it is sent', ({ field, depth }) => {
    const event = normaliseEvent({ [field]: parsedNested(100_000) });
    let value = event[field] as Json;
    for (let level = 1; level < depth - 1; level++) value = value.next as Json;
    expect(value.next).toMatch(/^\{"next":/);
    expect(() => JSON.stringify(event)).not.toThrow();
  });

  it('keeps each context to depth 7 and 8,192 bytes', () => {
    const event = normaliseEvent({
      contexts: { deep: parsedNested(100_000), wide: { text: long(20_000) }, broken: 'x' },
    });
    const contexts = event.contexts as Record<string, Json>;
    expect(Object.keys(contexts)).toEqual(['deep', 'wide']);
    expect(contexts.wide?.text).toBe(cut(8192));
  });

  it('keeps feature flags, a list of objects in a context, as they came', () => {
    const flags = {
      values: [
        { flag: 'new-checkout', result: true },
        { flag: 'beta', result: false },
      ],
    };
    const event = normaliseEvent({ contexts: { flags, trace: { trace_id: 'a'.repeat(32) } } });
    expect((event.contexts as Json).flags).toEqual(flags);
  });

  it('drops top-level fields Relay does not know, as Relay does', () => {
    const event = normaliseEvent({
      level: 'error',
      anything_else: { a: 1 },
      sdkProcessingMetadata: 1,
    });
    expect(event).toEqual({ level: 'error' });
  });

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

  it('keeps at most 1,000 properties of an object, and no more than its bag bytes', () => {
    const wide = Object.fromEntries(Array.from({ length: 5000 }, (_, n) => [`k${n}`, n]));
    const user = normaliseEvent({ user: { wide } }).user as { wide: Json };
    expect(Object.keys(user.wide)).toHaveLength(EVENT_LIMITS.breadth);
    const extra = normaliseEvent({ extra: { wide } }).extra as { wide: Json };
    // Within a value's size of the budget: Relay checks it before each value.
    expect(JSON.stringify(extra).length).toBeLessThanOrEqual(8192 + 16);
    expect(extra.wide.k0).toBe(0);
  });

  it('drops breadcrumb data entries past 2,048 bytes', () => {
    const data = Object.fromEntries(Array.from({ length: 100 }, (_, n) => [`k${n}`, long(100)]));
    const crumb = (normaliseEvent({ breadcrumbs: [{ data }] }).breadcrumbs as Json[])[0];
    const kept = crumb?.data as Json;
    expect(JSON.stringify(kept).length).toBeLessThanOrEqual(2048 + 16);
    expect(Object.keys(kept).length).toBeGreaterThan(10);
    expect(Object.keys(kept).length).toBeLessThan(100);
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
    const event = normaliseEvent(
      JSON.parse('{"extra":{"__proto__":{"polluted":1}},"level":"error"}'),
    );
    const extra = event.extra as Json;
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    expect((extra as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(extra)).toContain('__proto__');
  });
});

describe('normaliseEvent reads a list as Relay does (Values::from_value)', () => {
  it.each([
    {
      shape: 'one bare exception, as Sentry’s exception-compute-hashes input sends it',
      given: { type: 'ValueError', module: 'foo.bar', value: 'hello world' },
      expected: { values: [{ type: 'ValueError', module: 'foo.bar', value: 'hello world' }] },
    },
    { shape: 'an empty object: none', given: {}, expected: undefined },
    {
      shape: '{ values }',
      given: { values: [{ type: 'E' }] },
      expected: { values: [{ type: 'E' }] },
    },
    { shape: 'a bare list', given: [{ type: 'E' }], expected: [{ type: 'E' }] },
  ])('exception as $shape', ({ given, expected }) => {
    expect(normaliseEvent({ exception: given }).exception).toEqual(expected);
  });

  it('one bare thread is a list of one, bounded like any thread', () => {
    const threads = normaliseEvent({ threads: { id: 1, stacktrace: { frames: frames(1000) } } })
      .threads as { values: Array<{ stacktrace: { frames: Json[] } }> };
    expect(threads.values).toHaveLength(1);
    expect(threads.values[0]?.stacktrace.frames).toHaveLength(50);
  });
});

describe('normaliseEvent at ingest', () => {
  const receivedAt = new Date('2025-11-22T02:00:01.000Z');
  const received = receivedAt.getTime() / 1000;
  const eventId = 'e'.repeat(32);
  const ingest = (event: Json) => normaliseEvent(event, { eventId, receivedAt });

  it("takes the envelope's event id over the payload's", () => {
    expect(ingest({ event_id: 'A'.repeat(32) }).event_id).toBe(eventId);
    expect(ingest({ event_id: 'a/b?c#d' }).event_id).toBe(eventId);
  });

  it.each([
    { name: 'seconds', given: received - 5, expected: received - 5 },
    { name: 'an RFC 3339 string', given: '2025-11-22T01:00:00.5Z', expected: received - 3600.5 },
    {
      name: 'a string without a zone (UTC)',
      given: '2025-11-22T01:00:00',
      expected: received - 3601,
    },
    { name: 'nothing', given: undefined, expected: received },
    { name: 'something unreadable', given: 'yesterday', expected: received },
    { name: 'more than 60 s ahead', given: received + 61, expected: received },
    { name: 'up to 60 s ahead', given: received + 60, expected: received + 60 },
    { name: 'older than 90 days', given: received - 91 * 86_400, expected: received },
  ])('keeps a timestamp given as $name, or takes the time it arrived', ({ given, expected }) => {
    const event = ingest(given === undefined ? {} : { timestamp: given });
    expect(event.timestamp).toBe(expected);
    expect(event.received).toBe(received);
  });

  it.each([
    { given: undefined, expected: 'error' },
    { given: 'warn', expected: 'warning' },
    { given: 'critical', expected: 'fatal' },
    { given: 'log', expected: 'info' },
    { given: 20, expected: 'info' },
    { given: 'bogus', expected: 'error' },
  ])('reads level $given as $expected', ({ given, expected }) => {
    expect(ingest(given === undefined ? {} : { level: given }).level).toBe(expected);
  });

  it("formats a Python logging event's message and keeps its source lines and locals", () => {
    const event = ingest(structuredClone(pythonLogEvent));
    expect(event.logentry).toEqual({
      message: 'User %s failed to pay %d times',
      params: ['alice', 3],
      formatted: 'User alice failed to pay 3 times',
    });
    const [frame] = framesOf(event);
    expect(frame).toMatchObject({
      pre_context: ['def pay(user, card):', '    try:'],
      context_line: '        gateway.charge(card)',
      post_context: ['    except GatewayError as error:', '        raise ValueError(error)'],
      vars: { user: "'alice'", card: '<Card ****4242>' },
    });
    expect(event.timestamp).toBe(Date.parse('2025-11-22T02:00:00.123Z') / 1000 + 0.000456);
  });

  it("keeps a Java event's threads, the crashed one's stack included", () => {
    const event = ingest(structuredClone(javaThreadEvent));
    const threads = (event.threads as { values: Json[] }).values;
    expect(threads).toEqual(javaThreadEvent.threads.values);
  });

  it('turns a legacy message string into a logentry', () => {
    const event = ingest({ message: 'plain text' });
    expect(event.logentry).toEqual({ formatted: 'plain text' });
    expect(event.message).toBeUndefined();
  });

  it('moves a top-level stack into the only exception that has none, as Relay does', () => {
    const stacktrace = { frames: [{ function: 'f' }] };
    const event = ingest({ exception: { values: [{ type: 'E' }] }, stacktrace });
    expect(event.stacktrace).toBeUndefined();
    expect(framesOf(event)).toEqual(stacktrace.frames);
  });
});
