import { describe, expect, it } from 'vitest';
import {
  isFormContentType,
  methodRefusal,
  type ParsedCall,
  payloadRefusal,
  quietStartCallLogs,
  serverFunctionIdFor,
  serverFunctionIdOf,
} from '#app/start-1.120/server-function-calls';
import {
  GET_APP_OVERVIEW_FN,
  SIGN_IN_TO_INBOX_FN,
  SIGN_OUT_OF_INBOX_FN,
} from '#tests/support/server-function-paths';

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

describe('serverFunctionIdFor: the id Start 1.120 compiles a server function to', () => {
  // The expected paths are written out in tests/support/server-function-paths.ts, as the
  // built server serves them (the HTTP tests call them).
  it.each([
    ['app/server/inbox/inbox.functions.ts', 'signInToInbox', SIGN_IN_TO_INBOX_FN],
    ['app/server/inbox/inbox.functions.ts', 'signOutOfInbox', SIGN_OUT_OF_INBOX_FN],
    ['app/server/app-info.functions.ts', 'getAppOverview', GET_APP_OVERVIEW_FN],
  ])('%s %s -> %s', (file, name, path) => {
    expect(`/_server/${serverFunctionIdFor(file, name)}`).toBe(path);
  });
});

const query = (text: string) => new URLSearchParams(text);
const payload = (value: unknown) =>
  `createServerFn&payload=${encodeURIComponent(JSON.stringify(value))}`;
const get = (search: string, contentType?: string): ParsedCall => ({
  method: 'GET',
  contentType,
  query: query(search),
});
const post = (body: string, search = 'createServerFn'): ParsedCall => ({
  method: 'POST',
  contentType: 'application/json',
  query: query(search),
  body,
});

describe('methodRefusal', () => {
  it.each(['GET', 'POST'])('lets %s through', (method) => {
    expect(methodRefusal(method)).toBeUndefined();
  });

  it.each(['PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', undefined])('refuses %s with 405', (m) => {
    expect(methodRefusal(m)?.status).toBe(405);
  });
});

describe('isFormContentType: what Start reads as form data', () => {
  it.each([
    ['multipart/form-data; boundary=x', true],
    ['application/x-www-form-urlencoded;charset=UTF-8', true],
    ['application/json', false],
    [undefined, false],
  ])('%j -> %j', (contentType, expected) => {
    expect(isFormContentType(contentType)).toBe(expected);
  });
});

describe('payloadRefusal: payloads Start can parse and use', () => {
  it.each([
    ['a GET as Start’s client sends it', get(payload({ data: { page: 1 }, context: {} }))],
    ['a GET with a Start-serialised value', get(payload({ data: { $undefined: 0 } }))],
    ['a POST as Start’s client sends it', post(JSON.stringify({ data: null, context: {} }))],
    ['an unmarked POST of arguments', post(JSON.stringify([{ data: 1 }]), '')],
  ])('lets through %s', (_, call) => {
    expect(payloadRefusal(call)).toBeUndefined();
  });

  it.each([
    ['a GET without the createServerFn mark', get('payload=%7B%7D'), 'no createServerFn'],
    ['a GET without a payload', get('createServerFn'), 'no payload'],
    ['a GET with bad JSON', get('createServerFn&payload=%7Bbad'), 'not valid JSON'],
    ['a GET with a payload that is no object', get(payload(5)), 'not an object'],
    ['a GET with null', get(payload(null)), 'not an object'],
    ['a GET with form data', get(payload({}), 'multipart/form-data'), 'form data needs POST'],
    ['a POST without a body', post(''), 'no payload'],
    ['a POST with bad JSON', post('{"data":'), 'not valid JSON'],
    ['a POST of a string', post('"text"'), 'not an object'],
    ['an unmarked POST that is no array', post('{"data":1}', ''), 'not an object'],
    ['an unmarked POST of bad JSON', post('[', ''), 'not valid JSON'],
  ])('refuses %s with 400', (_, call, reason) => {
    const refusal = payloadRefusal(call);
    expect(refusal?.status).toBe(400);
    expect(refusal?.reason).toContain(reason);
  });
});

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
