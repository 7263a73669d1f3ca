/**
 * The operator's loop over real HTTP against the production build, in local inbox mode: the
 * digest a failed page shows finds its issue on /errors, bare and as `digest:`; `is:` follows a
 * resolve done through the page's own form; a typo in a key says so; the counts line follows
 * the search.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { readInbox, tagOf } from '#tests/support/inbox-database';
import { listedIssues, page } from '#tests/support/inbox-html';
import { seededEvent, seedInbox } from '#tests/support/seed-inbox';
import { waitFor } from '#tests/support/wait-for';

const NOW = Date.now();

const search = (server: BuiltServer, query: string) =>
  page(server, `/errors?q=${encodeURIComponent(query)}`);

function countsLine(html: string): string {
  return /<p data-testid="inbox-counts">([^<]*)<\/p>/.exec(html)?.[1] ?? '';
}

describe('searching the inbox the way an operator does', () => {
  let server: BuiltServer;
  let digest: string;
  let failureIssue: number;

  beforeAll(async () => {
    // Two browser issues already there; the server failure comes from the example route.
    const inboxDir = seedInbox([
      seededEvent({ type: 'TypeError', message: 'x is undefined', at: NOW - 60_000 }),
      seededEvent({ type: 'TypeError', message: 'x is undefined', at: NOW - 50_000 }),
      seededEvent({ type: 'RangeError', message: 'too far', at: NOW - 40_000 }),
    ]);
    server = await startBuiltServer({
      ENABLE_EXAMPLE_ROUTES: 'true',
      MONITORING_INBOX_DIR: inboxDir,
    });
    const failed = await fetch(`${server.url}/sentry-example-page/ssr-error`);
    expect(failed.status).toBe(500);
    // What the visitor sees on the error page, as they would copy it.
    const shown = /Digest: ([0-9a-f]{10})/.exec(await failed.text());
    expect(shown).not.toBeNull();
    digest = (shown as RegExpExecArray)[1] as string;
    // The report reaches the inbox through the ingest thread: wait until it is stored.
    failureIssue = await waitFor(
      'the inbox to store the failure tagged with its digest',
      () =>
        readInbox(inboxDir).events.find(({ event }) => tagOf(event, 'digest') === digest)?.issueId,
    );
  });
  afterAll(() => server?.stop());

  it('finds the failed page’s issue by its digest, bare and as digest:, and nothing else', async () => {
    for (const query of [digest, `digest:${digest}`, `  ${digest.toUpperCase()} `]) {
      const { status, html } = await search(server, query);
      expect(status).toBe(200);
      expect(listedIssues(html).map((issue) => issue.id)).toEqual([failureIssue]);
      expect(countsLine(html)).toMatch(/^1 issue, 1 event match \(of 3 issues, 4 events; /);
    }
    const other = await search(server, 'digest:0123456789');
    expect(listedIssues(other.html)).toEqual([]);
    expect(other.html).toContain('No issues match these filters.');
    expect(countsLine(other.html)).toMatch(/^0 issues, 0 events match/);
  });

  it('opens the issue of the digest, the failure’s own', async () => {
    const { html } = await page(server, `/errors/issues/${failureIssue}`);
    expect(html).toContain(digest);
  });

  it('finds by status after an issue is resolved through its page’s form', async () => {
    const issuePage = (await page(server, '/errors/issues/1')).html;
    const form = /<form[^>]*aria-label="Resolve this issue"[^>]*>/.exec(issuePage)?.[0] ?? '';
    const action = (/action="([^"]+)"/.exec(form)?.[1] ?? '').replaceAll('&amp;', '&');
    expect(action).toMatch(/^\/_server\//);
    const resolved = await fetch(`${server.url}${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.url },
      body: 'issueId=1&from=issue&action=resolve',
      redirect: 'manual',
    });
    expect(resolved.status).toBe(303);

    const isResolved = await search(server, 'is:resolved');
    expect(listedIssues(isResolved.html)).toEqual([{ id: 1, title: 'TypeError: x is undefined' }]);
    expect(countsLine(isResolved.html)).toMatch(
      /^1 issue, 2 events match \(of 3 issues, 4 events; /,
    );
    const isUnresolved = await search(server, 'is:unresolved');
    expect(
      listedIssues(isUnresolved.html)
        .map((issue) => issue.id)
        .sort(),
    ).toEqual([2, failureIssue].sort());
    expect(countsLine(isUnresolved.html)).toMatch(/^2 issues, 2 events match/);
    // Text and status together.
    expect(listedIssues((await search(server, 'is:unresolved too far')).html)).toEqual([
      { id: 2, title: 'RangeError: too far' },
    ]);
  });

  it('says so when a key is unknown, instead of finding nothing', async () => {
    for (const [query, message] of [
      ['lvl:error', 'Cannot search: unknown search key lvl.'],
      [
        'is:whatever',
        'Cannot search: unknown value for is: whatever (unresolved, resolved, ignored, regressed).',
      ],
    ]) {
      const { status, html } = await search(server, query as string);
      expect(status).toBe(200);
      expect(html).toContain(`<p role="alert" data-testid="search-problems">${message}</p>`);
      expect(listedIssues(html)).toEqual([]);
      expect(html).not.toContain('No issues match these filters.');
      // The figures are the inbox's, and say so: not the counts of a search that matched all.
      expect(countsLine(html)).toMatch(/^Nothing searched; the inbox holds 3 issues, 4 events/);
      // The search stays in the box, to be fixed.
      expect(html).toContain(`value="${query}"`);
    }
  });

  it('counts the whole inbox when nothing narrows it', async () => {
    expect(countsLine((await page(server, '/errors')).html)).toMatch(
      /^3 issues, 4 events \(\d+ stored\)\.$/,
    );
  });
});
