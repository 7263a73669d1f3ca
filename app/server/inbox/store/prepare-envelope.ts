/**
 * From an envelope's bytes to what the database stores, in the ingest thread: judged as Relay
 * judges it (../read-envelope.ts), split into its event, session updates and item counts
 * (../classify-envelope.ts), the event grouped as Sentry groups it (../grouping/grouping.ts),
 * after the build's source maps as Sentry applies them (./resolve-for-grouping.ts), with the
 * tags its issue's breakdown counts. The arrival time and the maps are given.
 */
import { isRecord } from '#app/server/is-record';
import { classifyEnvelope, type SessionUpdate } from '../classify-envelope';
import { groupEvent } from '../grouping/grouping';
import type { NormalisedEvent } from '../normalise-event';
import { readEnvelope } from '../read-envelope';
import { wellFormedText } from '../well-formed';
import type { PreparedEnvelope, PreparedEvent, PreparedSession } from './inbox-database.server';
import { type GroupingMaps, resolvedForGrouping } from './resolve-for-grouping';
import { browserOf, osOf } from './user-agent';

export type PrepareResult =
  | { ok: true; prepared: PreparedEnvelope; eventId?: string }
  | { ok: false; status: 400 | 413; reason: string };

/** Tag pairs kept per event for the breakdown: the derived ones first, then the event's own. */
const MAX_TAGS = 50;
const MAX_TAG_TEXT = 200;

export async function prepareEnvelope(
  bytes: Uint8Array,
  receivedAt: number,
  maps?: GroupingMaps,
): Promise<PrepareResult> {
  const read = readEnvelope(bytes);
  if (!read.ok) return read;
  const contents = classifyEnvelope(read.envelope, { receivedAt: new Date(receivedAt) });
  const prepared: PreparedEnvelope = {
    sessions: contents.sessionUpdates.map(sessionOf),
    counts: { ...contents.counts },
  };
  if (!contents.event) return { ok: true, prepared };
  const event = contents.event;
  // A map that cannot be read groups the frames as they came, as Sentry does without maps.
  const grouped = await resolvedForGrouping(event, maps).catch(() => event);
  prepared.event = preparedEvent(event, grouped);
  return { ok: true, prepared, eventId: prepared.event.eventId };
}

/** `grouped` is the event with its frames through the source maps, as Sentry groups it. */
function preparedEvent(event: NormalisedEvent, grouped: Record<string, unknown>): PreparedEvent {
  const grouping = groupEvent(grouped);
  const environment = textOf(event.environment);
  const release = textOf(event.release);
  const url = wellFormedText(urlOf(event));
  return {
    eventId: event.event_id,
    timestamp: Math.round(event.timestamp * 1000),
    level: event.level,
    platform: textOf(event.platform) || 'other',
    environment,
    release,
    url,
    // SQLite keeps text as UTF-8, where a lone surrogate cannot be: U+FFFD here, once.
    title: wellFormedText(grouping.title),
    culprit: wellFormedText(grouping.culprit),
    hashes: grouping.hashes,
    groupingConfig: grouping.config,
    tags: tagsOf(event, { environment, release, url }),
    payload: JSON.stringify(event),
  };
}

/** Release health's view of one update (./inbox-database.server.ts counts it). */
export function sessionOf(update: SessionUpdate): PreparedSession {
  const environment = update.environment ?? '';
  if (update.kind === 'aggregate') {
    return {
      release: update.release,
      environment,
      started: update.exited + update.errored + update.abnormal + update.crashed,
      errored: update.errored + update.abnormal + update.crashed,
      crashed: update.crashed,
      abnormal: update.abnormal,
    };
  }
  const failed = update.errors > 0 || (update.status !== 'ok' && update.status !== 'exited');
  return {
    release: update.release,
    environment,
    started: update.init ? 1 : 0,
    errored: failed ? 1 : 0,
    crashed: update.status === 'crashed' ? 1 : 0,
    abnormal: update.status === 'abnormal' ? 1 : 0,
    sessionId: update.sessionId,
  };
}

/**
 * The breakdown's tags, as Sentry shows them on an issue: browser, OS, URL, release and
 * environment (from the event's contexts and request), then the event's own tags.
 */
function tagsOf(
  event: NormalisedEvent,
  known: { environment: string; release: string; url: string },
): Array<[string, string]> {
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
  add('url', pathOf(known.url));
  add('release', known.release);
  add('environment', known.environment);
  add('level', event.level);
  for (const [key, value] of ownTags(event.tags)) add(key, value);
  return tags;
}

/** `tags` as an object or as Sentry's [key, value] pairs. */
function ownTags(tags: unknown): Array<[string, unknown]> {
  if (Array.isArray(tags)) {
    return tags.filter(
      (pair): pair is [string, unknown] => Array.isArray(pair) && typeof pair[0] === 'string',
    );
  }
  return isRecord(tags) ? Object.entries(tags) : [];
}

/** The request's User-Agent, from which Relay derives the browser and OS an event lacks. */
function userAgentOf(event: NormalisedEvent): string | undefined {
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

function urlOf(event: NormalisedEvent): string {
  const request = isRecord(event.request) ? event.request : {};
  if (typeof request.url === 'string') return request.url;
  const tags = ownTags(event.tags).find(([key]) => key === 'url');
  return typeof tags?.[1] === 'string' ? tags[1] : '';
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

function textOf(value: unknown): string {
  return typeof value === 'string' ? wellFormedText(value) : '';
}
