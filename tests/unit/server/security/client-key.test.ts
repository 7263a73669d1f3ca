import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  CLIENT_ADDRESS_HEADER,
  clientAddressOf,
  clientAddressStampedIn,
  clientKeyOf,
  forwardedChainOf,
  NO_TRUSTED_PROXIES,
  PEER_ADDRESS_HEADER,
  peerAddressOf,
  requestClientAddress,
  requestClientKey,
  stampPeerAddress,
  type TrustedProxies,
  trustedProxiesOf,
} from '#app/server/security/client-key';

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

describe('the client of a request, behind trusted proxies (proxy-addr semantics)', () => {
  const loopback = trustedProxiesOf(['loopback']);
  const twoHops = trustedProxiesOf(['loopback', '10.0.0.0/8']);
  const v6Proxy = trustedProxiesOf(['2001:db8:ffff::/48']);

  it.each<[string, string | undefined, string | undefined, TrustedProxies, string | undefined]>([
    // No TRUSTED_PROXIES: the peer, whatever the header says.
    ['no proxy trusted', '198.18.0.7', '203.0.113.9', NO_TRUSTED_PROXIES, '198.18.0.7'],
    [
      'no proxy trusted, loopback peer',
      '127.0.0.1',
      '203.0.113.9',
      NO_TRUSTED_PROXIES,
      '127.0.0.1',
    ],
    // An untrusted peer's header is its own words: ignored.
    ['a forged header from an untrusted peer', '198.18.0.7', '127.0.0.1', loopback, '198.18.0.7'],
    [
      'a forged chain from an untrusted peer',
      '198.18.0.7',
      '10.1.1.1, 127.0.0.1',
      twoHops,
      '198.18.0.7',
    ],
    // A trusted peer: the right-most address that is not a trusted proxy.
    ['nginx on loopback', '127.0.0.1', '203.0.113.9', loopback, '203.0.113.9'],
    [
      'nginx on loopback, IPv4-mapped peer',
      '::ffff:127.0.0.1',
      '203.0.113.9',
      loopback,
      '203.0.113.9',
    ],
    ['nginx on loopback, IPv6 peer', '::1', '203.0.113.9', loopback, '203.0.113.9'],
    ['a visitor prepends a forgery', '127.0.0.1', '1.2.3.4, 203.0.113.9', loopback, '203.0.113.9'],
    ['a visitor forges loopback', '127.0.0.1', '127.0.0.1, 203.0.113.9', loopback, '203.0.113.9'],
    ['two trusted hops', '127.0.0.1', '1.2.3.4, 203.0.113.9, 10.0.0.5', twoHops, '203.0.113.9'],
    [
      'a trusted hop is not trusted in another list',
      '127.0.0.1',
      '203.0.113.9, 10.0.0.5',
      loopback,
      '10.0.0.5',
    ],
    ['spaces and empty entries', '127.0.0.1', ' ,203.0.113.9 ,, ', loopback, '203.0.113.9'],
    ['an IPv6 client', '127.0.0.1', '2001:db8:1:2::77', loopback, '2001:db8:1:2::77'],
    ['an IPv6 proxy by CIDR', '2001:db8:ffff:1::2', '198.51.100.4', v6Proxy, '198.51.100.4'],
    ['every hop trusted: the left-most', '127.0.0.1', '10.0.0.9, 127.0.0.2', twoHops, '10.0.0.9'],
    // A trusted peer that sent no header (nginx's bare default): the peer.
    ['no header', '127.0.0.1', undefined, loopback, '127.0.0.1'],
    ['an empty header', '127.0.0.1', '', loopback, '127.0.0.1'],
    // Not an address: the hop that named it, so made-up names mint no clients.
    ['a name', '127.0.0.1', 'evil-client-1', loopback, '127.0.0.1'],
    ['a name past a trusted hop', '127.0.0.1', 'x, 10.0.0.5', twoHops, '10.0.0.5'],
    ['an address with a port', '127.0.0.1', '203.0.113.9:4711', loopback, '127.0.0.1'],
    ['garbage', '127.0.0.1', '\u0000;DROP TABLE', loopback, '127.0.0.1'],
    ['unknown peer', undefined, '203.0.113.9', loopback, undefined],
  ])('%s', (_name, peer, header, trusted, client) => {
    expect(clientAddressOf(peer, header, trusted)).toBe(client);
  });

  it('joins repeated X-Forwarded-For headers as one list', () => {
    expect(clientAddressOf('127.0.0.1', ['1.2.3.4', '203.0.113.9'], loopback)).toBe('203.0.113.9');
  });

  it('groups the resulting client into its IPv6 /64, as for a peer', () => {
    const keys = new Set(
      ['2001:db8:1:2::1', '2001:db8:1:2::ffff', '2001:db8:1:2:aa::1'].map((address) =>
        clientKeyOf(clientAddressOf('127.0.0.1', address, loopback)),
      ),
    );
    expect([...keys]).toEqual(['2001:db8:1:2::/64']);
    expect(clientKeyOf(clientAddressOf('::ffff:127.0.0.1', '203.0.113.9', loopback))).toBe(
      '203.0.113.9',
    );
  });

  it.each([
    ['loopback', ['127.0.0.1', '127.9.9.9', '::1'], ['10.0.0.1', '::2']],
    ['linklocal', ['169.254.1.1', 'fe80::1'], ['10.0.0.1']],
    ['uniquelocal', ['10.1.2.3', '172.16.0.1', '192.168.1.1', 'fd00::1'], ['127.0.0.1']],
    ['10.0.0.0/255.0.0.0', ['10.9.9.9'], ['11.0.0.1']],
    ['203.0.113.9', ['203.0.113.9', '::ffff:203.0.113.9'], ['203.0.113.10']],
  ])('%s trusts what proxy-addr trusts', (entry, trusted, untrusted) => {
    const proxies = trustedProxiesOf([entry]);
    for (const address of trusted) expect(proxies.trusts(address, 0)).toBe(true);
    for (const address of untrusted) expect(proxies.trusts(address, 0)).toBe(false);
  });

  it.each(['nginx', '10.0.0.0/33', '300.1.1.1', '/8', '::1/129'])(
    'refuses the entry %s',
    (entry) => {
      expect(() => trustedProxiesOf([entry])).toThrow(TypeError);
    },
  );
});

describe('the forwarding chain: X-Forwarded-For, else RFC 7239 Forwarded', () => {
  const loopback = trustedProxiesOf(['loopback']);

  it.each<[string, Record<string, string | string[]>, string | string[] | undefined]>([
    ['neither header', {}, undefined],
    [
      'X-Forwarded-For as sent',
      { 'x-forwarded-for': '1.2.3.4, 203.0.113.9' },
      '1.2.3.4, 203.0.113.9',
    ],
    ['Forwarded, one hop', { forwarded: 'for=203.0.113.9;proto=https' }, '203.0.113.9'],
    ['Forwarded, a chain', { forwarded: 'for=1.2.3.4, for=203.0.113.9' }, '1.2.3.4,203.0.113.9'],
    ['Forwarded, IPv4 with a port', { forwarded: 'for="203.0.113.9:4711"' }, '203.0.113.9'],
    ['Forwarded, IPv6 with a port', { forwarded: 'for="[2001:db8::1]:4711"' }, '2001:db8::1'],
    ['Forwarded, IPv6', { forwarded: 'for="[2001:db8::1]"' }, '2001:db8::1'],
    ['Forwarded, unknown', { forwarded: 'for=unknown' }, 'unknown'],
    ['Forwarded, obfuscated', { forwarded: 'for=_hidden' }, '_hidden'],
    ['Forwarded without for=', { forwarded: 'proto=https' }, 'unknown'],
    ['Forwarded that does not parse', { forwarded: 'for=1.2.3.4;;;="' }, 'unknown'],
    // A visitor's own Forwarded never outranks the X-Forwarded-For its proxy wrote.
    [
      'both: X-Forwarded-For',
      { 'x-forwarded-for': '203.0.113.9', forwarded: 'for=198.51.100.1' },
      '203.0.113.9',
    ],
  ])('%s', (_name, headers, chain) => {
    expect(forwardedChainOf(headers)).toEqual(chain);
  });

  it.each<[string, string, Record<string, string>, string]>([
    [
      'a trusted proxy that writes Forwarded',
      '127.0.0.1',
      { forwarded: 'for=203.0.113.9' },
      '203.0.113.9',
    ],
    [
      'a visitor prepends a forgery to Forwarded',
      '127.0.0.1',
      { forwarded: 'for=1.2.3.4, for=203.0.113.9' },
      '203.0.113.9',
    ],
    [
      'Forwarded from an untrusted peer',
      '198.18.0.7',
      { forwarded: 'for=127.0.0.1' },
      '198.18.0.7',
    ],
    ['Forwarded naming no one: the proxy', '127.0.0.1', { forwarded: 'for=unknown' }, '127.0.0.1'],
  ])('%s', (_name, peer, headers, client) => {
    expect(clientAddressOf(peer, forwardedChainOf(headers), loopback)).toBe(client);
  });
});

describe('stampPeerAddress: what the entry writes on every request', () => {
  const requestFrom = (remoteAddress: string, headers: Record<string, string>) =>
    ({ socket: { remoteAddress }, headers: { ...headers } }) as unknown as IncomingMessage;
  const loopback = trustedProxiesOf(['loopback']);

  it('stamps the peer and the client, over whatever a client sent under those names', () => {
    const req = requestFrom('127.0.0.1', {
      'x-forwarded-for': '2001:db8:1:2::9',
      [PEER_ADDRESS_HEADER]: '127.0.0.1',
      [CLIENT_ADDRESS_HEADER]: '198.18.0.99',
    });
    stampPeerAddress(req, loopback);
    expect(peerAddressOf(req.headers)).toBe('127.0.0.1');
    expect(clientAddressStampedIn(req.headers)).toBe('2001:db8:1:2::9');
    expect(requestClientAddress(req)).toBe('2001:db8:1:2::9');
    expect(requestClientKey(req)).toBe('2001:db8:1:2::/64');
  });

  it('from an untrusted peer, the client is the peer, forged headers or not', () => {
    const req = requestFrom('198.18.0.7', {
      'x-forwarded-for': '203.0.113.1',
      [CLIENT_ADDRESS_HEADER]: '203.0.113.2',
    });
    stampPeerAddress(req, loopback);
    expect(clientAddressStampedIn(req.headers)).toBe('198.18.0.7');
    expect(requestClientKey(req)).toBe('198.18.0.7');
  });

  it('without the entry (a bare server), the peer: never a header a client may have sent', () => {
    const req = requestFrom('198.18.0.7', { [CLIENT_ADDRESS_HEADER]: '203.0.113.2' });
    expect(requestClientKey(req)).toBe('198.18.0.7');
  });
});
