/**
 * Signing in to the private inbox over HTTP, as the sign-in form does: for the HTTP tests that
 * need a session (directly, or through nginx).
 */
import { SIGN_IN_TO_INBOX_FN } from './server-function-paths';

/** The token of the one-click link the server prints at start when it made one for this run. */
export function generatedTokenIn(output: string): string {
  const token = /\/errors\/sign-in#token=([A-Za-z0-9_-]+)/.exec(output)?.[1];
  if (!token) throw new Error(`No sign-in link in the server's output:\n${output}`);
  return token;
}

/** POSTs the sign-in form to `origin` (the app, or a proxy in front of it). */
export function postSignIn(
  origin: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${origin}${SIGN_IN_TO_INBOX_FN}?createServerFn`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ token }).toString(),
    redirect: 'manual',
  });
}

/** `inbox_session=<id>`, for a Cookie header, from a sign-in's answer. */
export function sessionCookieOf(response: Response): string {
  const cookie = response.headers.get('set-cookie') ?? '';
  if (!cookie.startsWith('inbox_session=')) throw new Error(`No session cookie: ${cookie}`);
  return cookie.split(';')[0] as string;
}

/** A Set-Cookie's attributes, sorted: a test says which it has without pinning their order. */
export function cookieAttributes(setCookie: string): string[] {
  return setCookie
    .split(';')
    .slice(1)
    .map((attribute) => attribute.trim())
    .sort();
}
