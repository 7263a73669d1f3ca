/**
 * Reading the inbox's pages as the HTTP tests do: a page with React's text separators taken out
 * (redirects not followed, so a test sees them), the issues a list shows, and a form's action.
 */
import { expect } from 'vitest';
import { withoutTextSeparators } from './html-text';

/** The page at `path`: its status, headers and HTML. */
export async function page(server: { url: string }, path: string) {
  const response = await fetch(`${server.url}${path}`, { redirect: 'manual' });
  return {
    status: response.status,
    headers: response.headers,
    html: withoutTextSeparators(await response.text()),
  };
}

/** The issues a list page shows, in order: each row's id and title. */
export function listedIssues(html: string): Array<{ id: number; title: string }> {
  return [
    ...html.matchAll(/<a href="\/errors\/issues\/(\d+)" class="issue-title">([^<]*)<\/a>/g),
  ].map((m) => ({ id: Number(m[1]), title: m[2] ?? '' }));
}

/** The titles of the issues a list page shows, in order. */
export function listed(html: string): string[] {
  return listedIssues(html).map((issue) => issue.title);
}

/** The action of the form a page names `label` (attributes come in any order). */
export function formAction(html: string, label: string): string {
  const form = new RegExp(`<form[^>]*aria-label="${label}"[^>]*>`).exec(html)?.[0] ?? '';
  const action = /action="([^"]+)"/.exec(form)?.[1];
  expect(action, label).toMatch(/^\/_server\//);
  return (action as string).replaceAll('&amp;', '&');
}
