import { expect, it } from 'vitest';
import { pathRefusal } from '#app/server/node/request-path';

it.each([
  ['/', undefined],
  ['/errors', undefined],
  ['/errors/', undefined],
  ['/errors/0123456789abcdef0123456789abcdef', undefined],
  ['/_build/assets/client-AbC123.js', undefined],
  ['/about%20us', undefined],
  ['/caf%C3%A9', undefined],
  ['/a.b/c..d/.well-known', undefined],
  ['/errors/%', 400],
  ['/%', 400],
  ['/about/%zz', 400],
  ['/errors/%E0%A4%A', 400],
  ['/errors/%00', 400],
  ['/errors%0A[server]%20forged', 400],
  ['//errors', 404],
  ['/./errors', 404],
  ['/errors/.', 404],
  ['/errors/..', 404],
  ['/x/../errors', 404],
  ['/%2Ferrors', 404],
  ['/%2E/errors', 404],
  ['/x/%2E%2E/errors', 404],
  ['errors', 404],
])('%s → %s', (path, status) => {
  expect(pathRefusal(path)?.status).toBe(status);
});
