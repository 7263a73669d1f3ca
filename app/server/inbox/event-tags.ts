/**
 * An event's tags as Sentry derives them at ingest and shows them on an event: browser and OS
 * (from its contexts, or its request's User-Agent as Relay fills those contexts), page, release,
 * environment, level, handled and mechanism (from the thrown exception's mechanism), transaction
 * and user (its `sentry:user` key), then the event's own tags. The inbox derives them from the
 * stored event, at ingest for the breakdown and again when a page shows the event. Pure.
 */
import { isIP } from 'node:net';
import UAParser from 'ua-parser-js';
import { isRecord, wellFormedText } from './protocol-values';

/** Tag pairs kept per event: the derived ones first, then the event's own. */
export const MAX_TAGS = 50;
/** Sentry's longest tag key and value (Relay's `MaxChars::TagValue`). */
export const MAX_TAG_TEXT = 200;

/**
 * Sentry's user key, the `sentry:user` tag (`EventUser.tag_value` in sentry/utils/eventuser.py):
 * the first of `id`, `username`, `email`, `ip_address` the event's user has, as
 * `id:…`, `username:…`, `email:…`, `ip:…`. An `ip_address` counts only as the literal address an
 * SDK sent: `{{auto}}` asks the ingest to fill in the connection's address, which the inbox never
 * does (decision 1120). A key longer than a tag value may be is no key, as Sentry drops the tag.
 */
export function userKeyOf(event: Record<string, unknown>): string | undefined {
  const user = isRecord(event.user) ? event.user : undefined;
  if (!user) return undefined;
  // Relay reads `id` leniently: a number is its decimal text.
  const id = typeof user.id === 'number' && Number.isFinite(user.id) ? String(user.id) : user.id;
  const ip = typeof user.ip_address === 'string' && isIP(user.ip_address) ? user.ip_address : '';
  const fields: Array<[string, unknown]> = [
    ['id', id],
    ['username', user.username],
    ['email', user.email],
    ['ip', ip],
  ];
  for (const [name, value] of fields) {
    if (typeof value !== 'string' || value === '') continue;
    const key = `${name}:${value}`;
    return key.length > MAX_TAG_TEXT ? undefined : wellFormedText(key);
  }
  return undefined;
}

/** Whether the thrown exception was handled, from its mechanism; undefined when it does not say. */
export function handledOf(event: Record<string, unknown>): boolean | undefined {
  const handled = thrownMechanismOf(event)?.handled;
  return typeof handled === 'boolean' ? handled : undefined;
}

/** The event's trace id (`contexts.trace.trace_id`), when it is one: 32 hex digits. */
export function traceIdOf(event: Record<string, unknown>): string | undefined {
  const contexts = isRecord(event.contexts) ? event.contexts : {};
  const trace = isRecord(contexts.trace) ? contexts.trace : {};
  const id = trace.trace_id;
  return typeof id === 'string' && /^[0-9a-f]{32}$/i.test(id) ? id.toLowerCase() : undefined;
}

/**
 * The event's tags as Sentry shows them, derived ones first (a derived key wins over an own tag
 * of the same name, as Sentry's `set_tag` overwrites it), each key once, each text cut at
 * MAX_TAG_TEXT and made well formed, at most MAX_TAGS.
 */
export function eventTagsOf(event: Record<string, unknown>): Array<[string, string]> {
  const tags: Array<[string, string]> = [];
  const add = (key: string, value: unknown) => {
    if (tags.length >= MAX_TAGS || typeof value !== 'string' || value === '') return;
    if (tags.some(([k]) => k === key)) return;
    tags.push([
      wellFormedText(key.slice(0, MAX_TAG_TEXT)),
      wellFormedText(value.slice(0, MAX_TAG_TEXT)),
    ]);
  };
  const contexts = isRecord(event.contexts) ? event.contexts : {};
  const agent = userAgentOf(event);
  add('browser', nameAndVersion(contexts.browser) ?? nameAndVersion(agent && browserOf(agent)));
  add('os', nameAndVersion(contexts.os) ?? nameAndVersion(agent && osOf(agent)));
  add('url', pathOf(pageUrlOf(event)));
  add('release', event.release);
  add('environment', event.environment);
  add('level', event.level);
  const handled = handledOf(event);
  if (handled !== undefined) add('handled', handled ? 'yes' : 'no');
  add('mechanism', thrownMechanismOf(event)?.type);
  add('transaction', event.transaction);
  add('user', userKeyOf(event));
  add('runtime', nameAndVersion(contexts.runtime));
  for (const [key, value] of ownTagsOf(event.tags)) add(key, value);
  return tags;
}

/**
 * The page an event happened on: for a server function, the page that called it (not
 * `/_server/…`, see ./event-request.ts); else the request's URL; else an own `url` tag.
 */
export function pageUrlOf(event: Record<string, unknown>): string {
  const contexts = isRecord(event.contexts) ? event.contexts : {};
  const serverFunction = isRecord(contexts.server_function) ? contexts.server_function : {};
  if (typeof serverFunction.page === 'string' && serverFunction.page !== '') {
    return serverFunction.page;
  }
  const request = isRecord(event.request) ? event.request : {};
  if (typeof request.url === 'string') return request.url;
  const tag = ownTagsOf(event.tags).find(([key]) => key === 'url');
  return typeof tag?.[1] === 'string' ? tag[1] : '';
}

/**
 * The mechanism of the exception that was thrown: the last of the chain, as Sentry's
 * `Exception.iter_tags` reads it (sentry/interfaces/exception.py).
 */
function thrownMechanismOf(event: Record<string, unknown>): Record<string, unknown> | undefined {
  const container = event.exception;
  const values = isRecord(container) ? container.values : container;
  if (!Array.isArray(values)) return undefined;
  const thrown: unknown = values[values.length - 1];
  return isRecord(thrown) && isRecord(thrown.mechanism) ? thrown.mechanism : undefined;
}

/** `tags` as an object or as Sentry's [key, value] pairs; a value that is not text is left out. */
export function ownTagsOf(tags: unknown): Array<[string, string]> {
  const pairs: unknown[] = Array.isArray(tags) ? tags : isRecord(tags) ? Object.entries(tags) : [];
  const result: Array<[string, string]> = [];
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') continue;
    const value: unknown = pair[1];
    // Primitives only: String() throws on an object like {"toString":1}.
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      result.push([pair[0], String(value)]);
    }
  }
  return result;
}

/** The request's User-Agent, from which Relay derives the browser and OS an event lacks. */
function userAgentOf(event: Record<string, unknown>): string | undefined {
  const request = isRecord(event.request) ? event.request : {};
  const headers = request.headers;
  const pairs: Array<[unknown, unknown]> = Array.isArray(headers)
    ? headers.filter(Array.isArray).map((pair) => [pair[0], pair[1]])
    : isRecord(headers)
      ? Object.entries(headers)
      : [];
  const found = pairs.find(
    ([name]) => typeof name === 'string' && name.toLowerCase() === 'user-agent',
  );
  return typeof found?.[1] === 'string' ? found[1] : undefined;
}

function nameAndVersion(context: unknown): string | undefined {
  if (!isRecord(context) || typeof context.name !== 'string') return undefined;
  const version = typeof context.version === 'string' ? context.version.split('.')[0] : undefined;
  return version ? `${context.name} ${version}` : context.name;
}

/** A URL's path (the page, without its origin and query), for the breakdown. */
function pathOf(url: string): string {
  if (url === '') return '';
  try {
    return new URL(url).pathname;
  } catch {
    return url.split('?')[0] ?? '';
  }
}

/** A browser or OS as a tag shows it: its name, and the major version when the agent gives one. */
export interface NamedVersion {
  name: string;
  version?: string;
}

/**
 * ua-parser-js's names where uap-core's differ: Relay fills `contexts.browser` and `contexts.os`
 * with uap-core's regexes, so these are the names Sentry shows. (ua-parser-js 1.x, MIT; 2.x is
 * AGPL.) The library cuts an agent at 500 characters before any pattern sees it.
 */
const UAP_BROWSER_NAMES: Record<string, string> = {
  'Chrome Headless': 'HeadlessChrome',
  'Chrome WebView': 'Chrome Mobile WebView',
  'Mobile Firefox': 'Firefox Mobile',
};
const UAP_OS_NAMES: Record<string, string> = {
  'Mac OS': 'Mac OS X',
  'Chromium OS': 'Chrome OS',
};

/** The browser of an event that does not say, from its request's `User-Agent`, as uap-core names it. */
export function browserOf(userAgent: string): NamedVersion | undefined {
  const agent = new UAParser(userAgent);
  const { name, major } = agent.getBrowser();
  if (!name) return undefined;
  const os = agent.getOS().name;
  // uap-core tells Chrome on a phone and on iOS apart by name; ua-parser-js by device and OS.
  const uapName =
    name === 'Chrome' && os === 'iOS'
      ? 'Chrome Mobile iOS'
      : name === 'Chrome' && agent.getDevice().type === 'mobile'
        ? 'Chrome Mobile'
        : name === 'Firefox' && os === 'iOS'
          ? 'Firefox iOS'
          : (UAP_BROWSER_NAMES[name] ?? name);
  return namedVersion(uapName, major);
}

/** The OS of an event that does not say, from its request's `User-Agent`, as uap-core names it. */
export function osOf(userAgent: string): NamedVersion | undefined {
  const { name, version } = new UAParser(userAgent).getOS();
  if (!name) return undefined;
  return namedVersion(UAP_OS_NAMES[name] ?? name, version?.split('.')[0]);
}

function namedVersion(name: string, major: string | undefined): NamedVersion {
  return major ? { name, version: major } : { name };
}
