import { expect, it } from 'vitest';
import { browserOf, osOf } from '#app/server/inbox/store/user-agent';

it.each([
  [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
    { name: 'Chrome', version: '156' },
    { name: 'Linux' },
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36 Edg/140.0.3485.54',
    { name: 'Edge', version: '140' },
    { name: 'Windows', version: '10' },
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.4 Safari/605.1.15',
    { name: 'Safari', version: '18' },
    { name: 'Mac OS X', version: '10' },
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.4 Mobile/15E148 Safari/604.1',
    { name: 'Mobile Safari', version: '18' },
    { name: 'iOS', version: '18' },
  ],
  [
    'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:139.0) Gecko/20100101 Firefox/139.0',
    { name: 'Firefox', version: '139' },
    { name: 'Linux' },
  ],
  [
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/137.0.0.0 Mobile Safari/537.36',
    { name: 'Chrome Mobile', version: '137' },
    { name: 'Android', version: '14' },
  ],
  [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
    { name: 'Chrome', version: '156' },
    { name: 'Linux' },
  ],
  ['curl/8.5.0', undefined, undefined],
  ['', undefined, undefined],
])('%s', (agent, browser, os) => {
  expect(browserOf(agent)).toEqual(browser);
  expect(osOf(agent)).toEqual(os);
});

it('reads a hostile agent in bounded time: only its first 512 characters', () => {
  const agent = `${'Mozilla/5.0 '.repeat(10_000)}Chrome/1`;
  expect(browserOf(agent)).toBeUndefined();
});
