import { expect, it } from 'vitest';
import { wellFormed, wellFormedText } from '#app/server/inbox/inbox-event';

it.each([
  ['plain', 'plain'],
  ['lone high \ud800 here', 'lone high \ufffd here'],
  ['lone low \udc00', 'lone low \ufffd'],
  ['reversed \udc00\ud800', 'reversed \ufffd\ufffd'],
  ['a pair stays: 😀 \ud83d\ude00', 'a pair stays: 😀 😀'],
  ['\ud800\ud800\udc00', '\ufffd𐀀'],
  ['', ''],
])('%j → %j', (text, expected) => {
  expect(wellFormedText(text)).toBe(expected);
});

it('reaches every string in nested data, keys included, and leaves the rest alone', () => {
  const when = new Date(0);
  const input = {
    title: 'x\ud800',
    frames: [{ function: '\udfff', lineno: 3, inApp: true }],
    tags: [['k\ud800', 'v']],
    data: { 'key\udc00': null },
    when,
  };
  expect(wellFormed(input)).toEqual({
    title: 'x\ufffd',
    frames: [{ function: '\ufffd', lineno: 3, inApp: true }],
    tags: [['k\ufffd', 'v']],
    data: { 'key\ufffd': null },
    when,
  });
  expect(input.title).toBe('x\ud800');
});
