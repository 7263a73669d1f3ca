import { describe, expect, it } from 'vitest';
import { serverFunctionIdOf } from '#app/start-1.120/server-function-id';

describe('serverFunctionIdOf: which server function a request path names', () => {
  it.each([
    ['/_server/app_fn--handler', 'app_fn--handler'],
    ['/_server/app_fn--handler?createServerFn', 'app_fn--handler'],
    ['/_server/app_fn--handler/extra', 'app_fn--handler'],
    ['/_server/app_fn--handler#x', 'app_fn--handler'],
    ['/_server/', undefined],
    ['/_server', undefined],
    ['/_server?x', undefined],
    ['/_serverX/app_fn', undefined],
    ['/about', undefined],
    ['', undefined],
  ])('%j -> %j', (path, expected) => {
    expect(serverFunctionIdOf(path)).toBe(expected);
  });
});
