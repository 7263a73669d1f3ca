/**
 * axe-core over the pages a visitor and an operator see, on a 390 px phone and on a desktop,
 * against the production build: the issue list (with issues, and a search that finds nothing),
 * an issue of a browser error (stack, breadcrumbs, tags, users, its events), an issue of a
 * server failure, an event's own address, the inbox's sign-in page and the visitor's error page.
 * None may have a serious or critical violation, folded parts unfolded, and none may scroll
 * sideways.
 */
import AxeBuilder from '@axe-core/playwright';
import { type BrowserContext, expect, type Page, test } from '@playwright/test';
import { SERVER_FAILURE_MESSAGE } from '#app/monitoring/failure-view';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { readInbox } from '#tests/support/inbox-database';
import { generatedTokenIn, postSignIn, sessionCookieOf } from '#tests/support/inbox-sign-in';
import { seededEvent, seedInbox } from '#tests/support/seed-inbox';
import { waitFor } from '#tests/support/wait-for';
import { waitForHydration } from './support/hydration';

const MINUTE = 60_000;
const SSR_FAILURE = 'Sentry example: loader failed during SSR';
/** Six events of one browser error, a minute apart, from three users; the oldest is listed last. */
const browserEvents = Array.from({ length: 6 }, (_, n) => {
  const user = `id:user-${n % 3}`;
  const seeded = seededEvent({
    eventId: `${(200 + n).toString(16)}`.padStart(32, 'b'),
    type: 'TypeError',
    message: 'cart.items is undefined',
    url: 'http://localhost:3000/checkout',
    at: Date.now() - n * MINUTE,
    tags: [
      ['browser', n % 2 ? 'Firefox 140' : 'Chrome 156'],
      ['os', 'Linux'],
      ['url', '/checkout'],
      ['handled', 'no'],
      ['user', user],
    ],
    event: { user: { id: `user-${n % 3}` } },
  });
  if (seeded.event) seeded.event.userKey = user;
  return seeded;
});
const olderEventId = browserEvents[4]?.event?.eventId as string;

let server: BuiltServer;
let inboxDir: string;
/** `inbox_session=<id>` of a signed-in operator: the inbox is private, as in production. */
let sessionCookie: string;
let serverFailureIssue: number;

test.beforeAll(async () => {
  inboxDir = seedInbox([
    ...browserEvents,
    seededEvent({ type: 'RangeError', message: 'Invalid array length', environment: 'staging' }),
  ]);
  server = await startBuiltServer({
    MONITORING_INBOX_DIR: inboxDir,
    MONITORING_INBOX_TRUST_LOOPBACK: 'false',
    ENABLE_EXAMPLE_ROUTES: '1',
  });
  sessionCookie = sessionCookieOf(await postSignIn(server.url, generatedTokenIn(server.output())));
  // A real server failure, recorded by the server itself, for the server failure's issue page.
  const failed = await fetch(`${server.url}/sentry-example-page/ssr-error`, {
    headers: { 'user-agent': BROWSER_USER_AGENT },
  });
  expect(failed.status).toBe(500);
  await failed.text();
  serverFailureIssue = await waitFor(
    'the inbox to store the server failure',
    () => readInbox(inboxDir).issues.find((issue) => issue.title.includes(SSR_FAILURE))?.id,
  );
});
test.afterAll(async () => {
  await server?.stop();
});

async function signIn(context: BrowserContext): Promise<void> {
  const [name, value] = sessionCookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: server.url }]);
}

interface Scanned {
  name: string;
  /** The address, once the server is up (the server failure's issue id is known only then). */
  path: () => string;
  /** Whether an operator opens it (signed in) or a visitor. */
  signedIn: boolean;
  /** What the page shows once it has loaded: the scan waits for it. */
  shows: (page: Page) => ReturnType<Page['getByText']>;
}

const PAGES: Scanned[] = [
  {
    name: 'the issue list',
    path: () => '/errors',
    signedIn: true,
    shows: (page) => page.getByRole('link', { name: 'TypeError: cart.items is undefined' }),
  },
  {
    name: 'the issue list, a search that finds nothing',
    path: () => '/errors?q=no-issue-has-this-text',
    signedIn: true,
    shows: (page) => page.getByText('No issues match these filters.'),
  },
  {
    name: 'a browser error’s issue page',
    path: () => '/errors/issues/1',
    signedIn: true,
    shows: (page) => page.getByRole('list', { name: 'Events of this issue, newest first' }),
  },
  {
    name: 'a server failure’s issue page',
    path: () => `/errors/issues/${serverFailureIssue}`,
    signedIn: true,
    shows: (page) => page.getByRole('heading', { level: 1, name: new RegExp(SSR_FAILURE) }),
  },
  {
    name: 'an event’s own address',
    path: () => `/errors/${olderEventId}`,
    signedIn: true,
    shows: (page) => page.getByText(olderEventId, { exact: true }),
  },
  {
    name: 'the inbox’s sign-in page',
    path: () => '/errors/sign-in',
    signedIn: false,
    shows: (page) => page.getByRole('form', { name: 'Sign in to the error inbox' }),
  },
  {
    name: 'the error page a visitor sees',
    path: () => '/sentry-example-page/ssr-error',
    signedIn: false,
    shows: (page) => page.getByText(SERVER_FAILURE_MESSAGE),
  },
];

/** Opens every <details> (the folded library frames, say): axe skips what is hidden. */
async function unfoldEverything(page: Page): Promise<void> {
  await page.evaluate(() => {
    for (const details of document.querySelectorAll('details')) details.open = true;
  });
}

/**
 * axe's serious and critical violations on the page as it stands, one line per element:
 * what the rule is, how bad, which element and what to do, so a failure says what to fix.
 */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) =>
      violation.nodes.map(
        (node) =>
          `${violation.id} (${violation.impact}) at ${node.target.join(' ')}: ${violation.help}`,
      ),
    );
}

const VIEWPORTS = [
  { name: 'a 390 px phone', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  { name: 'a desktop', viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false },
];

for (const { name: screen, viewport, isMobile, hasTouch } of VIEWPORTS) {
  test.describe(`on ${screen}`, () => {
    test.use({ viewport, isMobile, hasTouch });

    for (const scanned of PAGES) {
      test(`${scanned.name}: no serious or critical axe violation, no sideways scroll`, async ({
        page,
        context,
      }) => {
        if (scanned.signedIn) await signIn(context);
        await page.goto(`${server.url}${scanned.path()}`);
        await waitForHydration(page);
        await expect(scanned.shows(page).first()).toBeVisible();
        await unfoldEverything(page);
        expect(await seriousViolations(page)).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          viewport.width,
        );
      });
    }
  });
}
