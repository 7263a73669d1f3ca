import { expect, it } from 'vitest';
import { clientKeyOf } from '#app/server/security/client-key';

it.each([
  ['203.0.113.7', '203.0.113.7'],
  ['::ffff:203.0.113.7', '203.0.113.7'],
  ['127.0.0.1', '127.0.0.1'],
  ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
  ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
  ['2001:DB8:0001:0002::1', '2001:db8:1:2::/64'],
  ['2001:db8::1', '2001:db8:0:0::/64'],
  ['::1', '0:0:0:0::/64'],
  ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ['64:ff9b::198.51.100.1', '64:ff9b:0:0::/64'],
  [undefined, 'unknown'],
  ['', 'unknown'],
])('%s is the client %s', (address, key) => {
  expect(clientKeyOf(address)).toBe(key);
});

it('puts every address of one /64 under one key, and a neighbouring /64 under another', () => {
  const keys = new Set(
    Array.from({ length: 100 }, (_, i) => clientKeyOf(`2001:db8:aa:bb:${i.toString(16)}::${i}`)),
  );
  expect([...keys]).toEqual(['2001:db8:aa:bb::/64']);
  expect(clientKeyOf('2001:db8:aa:bc::1')).not.toBe('2001:db8:aa:bb::/64');
});
