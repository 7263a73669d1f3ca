import { expect, it } from 'vitest';
import { throttledWarning } from '#app/server/node/throttled-log';

it('logs the first warning, then one per interval with the count of the ones in between', () => {
  const lines: string[] = [];
  let clock = 0;
  const warn = throttledWarning(
    1000,
    (line) => lines.push(line),
    () => clock,
  );
  warn('busy');
  for (clock = 1; clock < 1000; clock += 100) warn('busy');
  expect(lines).toEqual(['busy']);
  clock = 1000;
  warn('busy');
  clock = 5000;
  warn('calm again?');
  expect(lines).toEqual(['busy', 'busy (and 10 more since the last line)', 'calm again?']);
});
