import { describe, expect, it } from 'vitest';
import { quietStartCallLogs } from '#app/start-1.120/start-dev-log';

describe('quietStartCallLogs', () => {
  it.each<[string, unknown[], boolean]>([
    ["Start's request line", ['\nServerFn Request: abc_123'], false],
    ["Start's response line", ['ServerFn Response: 200'], false],
    ["Start's payload line", [' - Payload: {"secret":"x"}'], false],
    ['our own line', ['[server] listening'], true],
    ['a line that only mentions a server function', ['ServerFn Request: a b'], true],
    ['the same text with more arguments', ['ServerFn Response: 200', { extra: 1 }], true],
    ['an empty info line', [], true],
  ])('%s: printed = %s', (_name, args, printed) => {
    const lines: unknown[][] = [];
    const target = { info: (...rest: unknown[]) => lines.push(rest) };
    quietStartCallLogs(target);
    target.info(...args);
    expect(lines).toEqual(printed ? [args] : []);
  });

  it('wraps once, however often it is installed', () => {
    const lines: unknown[][] = [];
    const target = { info: (...rest: unknown[]) => lines.push(rest) };
    quietStartCallLogs(target);
    const wrapped = target.info;
    quietStartCallLogs(target);
    expect(target.info).toBe(wrapped);
    target.info('kept');
    expect(lines).toEqual([['kept']]);
  });
});
