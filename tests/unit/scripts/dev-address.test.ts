import { describe, expect, it } from 'vitest';
import {
  devAddress,
  exposureLine,
  hmrHost,
  portInUseMessage,
} from '../../../scripts/dev-address.mjs';

describe('devAddress', () => {
  it.each([
    ['nothing set: loopback, 3000', {}, { host: '127.0.0.1', port: 3000 }],
    ['an empty HOST is unset', { HOST: ' ' }, { host: '127.0.0.1', port: 3000 }],
    ['HOST and PORT as given', { HOST: '0.0.0.0', PORT: '8080' }, { host: '0.0.0.0', port: 8080 }],
    ['PORT=0 picks one', { PORT: '0' }, { host: '127.0.0.1', port: 0 }],
  ])('%s', (_name, env, address) => {
    expect(devAddress(env)).toEqual(address);
  });
});

describe('hmrHost', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['192.168.1.20', '192.168.1.20'],
    // A browser cannot connect to "every address": vite's default then.
    ['0.0.0.0', undefined],
    ['::', undefined],
  ])('%s → %s', (host, hmr) => {
    expect(hmrHost(host)).toBe(hmr);
  });
});

describe('exposureLine', () => {
  it.each([
    ['127.0.0.1', /not exposed: listening on 127\.0\.0\.1 only/],
    ['localhost', /not exposed: listening on localhost only/],
    ['0.0.0.0', /exposed on every address, port 3000/],
    ['192.168.1.20', /exposed on 192\.168\.1\.20, port 3000/],
  ])('%s', (host, line) => {
    expect(exposureLine({ host, port: 3000 })).toMatch(line);
    expect(exposureLine({ host, port: 3000 })).not.toContain('--host');
  });
});

it("portInUseMessage is npm start's", () => {
  expect(portInUseMessage({ host: '127.0.0.1', port: 3000 })).toBe(
    '[server] port 3000 is already in use on 127.0.0.1: stop the other server, or set PORT to a free port (PORT=0 picks one)',
  );
});
