import { notFound, redirect } from '@tanstack/react-router';
import { describe, expect, it } from 'vitest';
import {
  ONERROR,
  ownScriptOf,
  type Recorded,
  type Report,
  randomEventId,
  thrownFacts,
} from '#app/monitoring/recorder/recorder';
import { isWorthSending } from '#app/monitoring/start-browser-monitoring';

describe('thrownFacts', () => {
  it('an Error: its name, message and stack', () => {
    const error = new TypeError('bad');
    expect(thrownFacts(error)).toEqual({ name: 'TypeError', message: 'bad', stack: error.stack });
  });
  it.each<[string, unknown, string]>([
    ['a string', 'plain', 'plain'],
    ['an object', { code: 7 }, '{"code":7}'],
    ['undefined', undefined, 'undefined'],
  ])('%s: as text, no name', (_name, thrown, message) => {
    expect(thrownFacts(thrown)).toEqual({ message });
  });
  it('cuts long messages and stacks', () => {
    const error = new Error('m'.repeat(20_000));
    error.stack = 's'.repeat(40_000);
    const facts = thrownFacts(error);
    expect(facts.message.length).toBe(8_192);
    expect(facts.stack?.length).toBe(16_384);
  });
});

describe('ownScriptOf: which failed loads are ours', () => {
  const origin = 'http://h';
  it.each<[string, object, string | undefined]>([
    [
      'our module script',
      { tagName: 'SCRIPT', src: 'http://h/_build/assets/client-A.js' },
      'http://h/_build/assets/client-A.js',
    ],
    [
      'our modulepreload',
      { tagName: 'LINK', rel: 'modulepreload', href: 'http://h/_build/assets/vendor-react-A.js' },
      'http://h/_build/assets/vendor-react-A.js',
    ],
    [
      'a stylesheet',
      { tagName: 'LINK', rel: 'stylesheet', href: 'http://h/_build/assets/app.css' },
      undefined,
    ],
    ['an image', { tagName: 'IMG', src: 'http://h/_build/x.png' }, undefined],
    ['a script of another origin', { tagName: 'SCRIPT', src: 'http://cdn/_build/a.js' }, undefined],
    [
      'a script of ours outside the build',
      { tagName: 'SCRIPT', src: 'http://h/other.js' },
      undefined,
    ],
  ])('%s', (_name, element, expected) => {
    expect(ownScriptOf(element as EventTarget, origin)).toBe(expected);
  });
});

describe('randomEventId', () => {
  it('32 lowercase hex digits, new each time', () => {
    const id = randomEventId();
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(randomEventId()).not.toBe(id);
  });
});

const uncaught = (thrown: unknown, message = String(thrown)): Recorded => ({
  report: {
    id: 'e'.repeat(32),
    kind: 'error',
    at: 1,
    url: 'http://h/about',
    ...thrownFacts(thrown ?? message),
    mechanism: { type: ONERROR, handled: false },
  } as Report,
  original: thrown,
});

describe('isWorthSending: the SDK noise rules, for what the recorder keeps', () => {
  const extension = new Error('ext');
  extension.stack = 'Error: ext\n    at x (chrome-extension://abc/content.js:1:1)';
  it.each<[string, Recorded, boolean]>([
    ['an uncaught error', uncaught(new Error('boom')), true],
    [
      'a ResizeObserver loop notice',
      uncaught(undefined, 'ResizeObserver loop completed with undelivered notifications.'),
      false,
    ],
    ['a bare "Script error."', uncaught(undefined, 'Script error.'), false],
    ["an extension's error", uncaught(extension), false],
    ["the router's redirect", uncaught(redirect({ to: '/' })), false],
    ["the router's notFound", uncaught(notFound()), false],
    [
      'a CSP violation message',
      {
        report: {
          id: 'd'.repeat(32),
          kind: 'message',
          at: 1,
          url: 'http://h/',
          message: 'CSP',
          level: 'warning',
        },
      },
      true,
    ],
    [
      'a script of ours that did not load',
      {
        report: {
          id: 'c'.repeat(32),
          kind: 'asset',
          at: 1,
          url: 'http://h/',
          name: 'ChunkLoadError',
          message: 'Loading chunk http://h/_build/assets/client-A.js failed.',
        },
      },
      true,
    ],
  ])('%s', (_name, recorded, worth) => {
    expect(isWorthSending(recorded)).toBe(worth);
  });
});
