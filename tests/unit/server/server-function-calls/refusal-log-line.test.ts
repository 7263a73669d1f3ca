import { expect, it } from 'vitest';
import { refusalLogLine } from '#app/server/server-function-calls/refusal-log-line';

it('says status, reason, method and function id on one line', () => {
  expect(refusalLogLine(405, 'PUT is not allowed here', 'PUT', 'app_fn--handler')).toBe(
    '[server-fn] 405 PUT is not allowed here: PUT app_fn--handler',
  );
});

it('stays one short line whatever the caller sent', () => {
  const line = refusalLogLine(400, `bad\n${'r'.repeat(5000)}`, 'POST', 'i'.repeat(5000));
  expect(line).not.toContain('\n');
  expect(line.length).toBeLessThan(900);
});
