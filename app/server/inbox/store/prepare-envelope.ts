/**
 * An envelope made ready to store, in the ingest thread: parsed and judged, its frames resolved
 * for grouping (bounded), its tags and its user key derived (`eventTagsOf`, `userKeyOf` in ../inbox-event.ts).
 */
import { classifyEnvelope, type SessionUpdate } from '../classify-envelope';
import { isRecord, readEnvelope } from '../envelope';
import { groupEvent } from '../grouping/grouping';
import type { StackFrame } from '../inbox-event';
import { eventTagsOf, ownTagsOf, pageUrlOf, userKeyOf, wellFormedText } from '../inbox-event';
import type { NormalisedEvent } from '../normalise-event';
import { debugImagesOf, type SourceMapStore } from '../source-maps/map-store.server';
import { resolveEventFrames } from '../source-maps/resolve-frame';
import type { PreparedEnvelope, PreparedEvent, PreparedSession } from './inbox-database.server';

/**
 * From an envelope's bytes to what the database stores, in the ingest thread: judged as Relay
 * judges it (../envelope.ts), split into its event, session updates and item counts
 * (../classify-envelope.ts), the event grouped as Sentry groups it (../grouping/grouping.ts),
 * after the build's source maps as Sentry applies them (`resolvedForGrouping`, below), with the
 * tags its issue's breakdown counts and the user it counts. The arrival time and the maps are given.
 */
export type PrepareResult =
  | { ok: true; prepared: PreparedEnvelope; eventId?: string }
  | { ok: false; status: 400 | 413; reason: string };

/** Characters of an event's message kept for search (Sentry cuts an exception's value at 1024). */
const MAX_SEARCH_MESSAGE = 1024;
/** A digest longer than a tag's value could be is not one the app made. */
const MAX_DIGEST = 200;

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
  const url = wellFormedText(pageUrlOf(event));
  const userKey = userKeyOf(event);
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
    message: wellFormedText(searchMessageOf(event)),
    ...digestOf(event),
    hashes: grouping.hashes,
    groupingConfig: grouping.config,
    tags: eventTagsOf(event),
    ...(userKey === undefined ? {} : { userKey }),
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
      started: update.exited + update.errored + update.abnormal + update.unhandled + update.crashed,
      errored: update.errored + update.abnormal + update.unhandled + update.crashed,
      unhandled: update.unhandled,
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
    unhandled: update.status === 'unhandled' ? 1 : 0,
    crashed: update.status === 'crashed' ? 1 : 0,
    abnormal: update.status === 'abnormal' ? 1 : 0,
    sessionId: update.sessionId,
  };
}

/**
 * What free text searches beside the title: the log message and every exception's type and
 * value, whole (the title has the first line of one), as Sentry's search message holds them.
 */
function searchMessageOf(event: NormalisedEvent): string {
  const logentry = isRecord(event.logentry) ? event.logentry : {};
  const logged = textOf(logentry.formatted) || textOf(logentry.message);
  const exception = isRecord(event.exception) ? event.exception : {};
  const thrown = (Array.isArray(exception.values) ? exception.values : [])
    .filter(isRecord)
    .map((value) => [textOf(value.type), textOf(value.value)].filter(Boolean).join(': '));
  return [logged, ...thrown].filter(Boolean).join('\n').slice(0, MAX_SEARCH_MESSAGE);
}

/** The event's own `digest` tag (a server failure's), before the breakdown's cap on tags. */
function digestOf(event: NormalisedEvent): { digest?: string } {
  const found = ownTagsOf(event.tags).find(([key]) => key === 'digest');
  const digest = found?.[1];
  return typeof digest === 'string' && digest !== ''
    ? { digest: wellFormedText(digest.slice(0, MAX_DIGEST).toLowerCase()) }
    : {};
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? wellFormedText(value) : '';
}

// The event as Sentry groups it: Sentry applies source maps before grouping, so a minified
// frame (`a` in a hashed client chunk) counts by its original file and source line. Without this,
// every deploy (new chunk hashes, new minified names) would open new issues for old bugs. Only
// the grouping sees the resolved frames; the stored event keeps the frames as they came, and
// the pages resolve them again as they are read (../event-stack.server.ts).
//
// A frame the maps resolve gets Sentry's processed shape: the original path and function, the
// line, the `context_line`, and `data.sourcemap` (which is what tells Sentry's grouping to use
// the context line). Any frame that does not resolve is left as it came.

/** Files one event may send through the maps before it is grouped as it came. */
export const MAX_FILES_RESOLVED = 8;

export interface GroupingMaps {
  store: SourceMapStore;
  projectRoot: string;
  serverOutputDir: string;
}

export async function resolvedForGrouping(
  event: Record<string, unknown>,
  maps: GroupingMaps | undefined,
): Promise<Record<string, unknown>> {
  if (!maps) return event;
  const exception = isRecord(event.exception) ? event.exception : undefined;
  const values = Array.isArray(exception?.values) ? exception.values : [];
  if (values.length === 0) return event;
  const framesOf = (value: unknown): Record<string, unknown>[] => {
    const stack = isRecord(value) && isRecord(value.stacktrace) ? value.stacktrace : undefined;
    return Array.isArray(stack?.frames) ? stack.frames.filter(isRecord) : [];
  };
  // A real stack touches a handful of chunks; one built to name every map of the build would
  // make the thread parse maps for each event (the cache holds 16), slowing everyone's reports.
  const files = new Set(
    values.flatMap((value) => framesOf(value).map((frame) => frame.abs_path ?? frame.filename)),
  );
  if (files.size > MAX_FILES_RESOLVED) return event;
  // The resolver takes frames most recent first; Sentry's are oldest first.
  const resolved = await resolveEventFrames(
    {
      exceptions: values.map((value) => ({
        type: '',
        value: '',
        frames: framesOf(value).map(asStackFrame).reverse(),
      })),
      debugImages: debugImagesOf(event),
    },
    maps.store,
    { projectRoot: maps.projectRoot, serverOutputDir: maps.serverOutputDir },
  );
  const mapped = values.map((value, index) => {
    const frames = framesOf(value);
    const resolutions = [...(resolved.exceptions[index]?.resolutions ?? [])].reverse();
    if (!isRecord(value) || frames.length === 0) return value;
    const stacktrace = isRecord(value.stacktrace) ? value.stacktrace : {};
    return {
      ...value,
      stacktrace: {
        ...stacktrace,
        frames: frames.map((frame, i) => {
          const resolution = resolutions[i];
          if (!resolution?.resolved) return frame;
          return {
            ...frame,
            filename: resolution.path,
            abs_path: resolution.path,
            function: resolution.functionName ?? frame.function,
            lineno: resolution.line,
            colno: resolution.column,
            in_app: !resolution.library,
            ...(resolution.context ? { context_line: resolution.context.line } : {}),
            data: { ...(isRecord(frame.data) ? frame.data : {}), sourcemap: 'build' },
          };
        }),
      },
    };
  });
  return { ...event, exception: { ...exception, values: mapped } };
}

function asStackFrame(frame: Record<string, unknown>): StackFrame {
  const shaped: StackFrame = { inApp: frame.in_app === true };
  if (typeof frame.abs_path === 'string') shaped.filename = frame.abs_path;
  else if (typeof frame.filename === 'string') shaped.filename = frame.filename;
  if (typeof frame.function === 'string') shaped.function = frame.function;
  if (typeof frame.lineno === 'number') shaped.lineno = frame.lineno;
  if (typeof frame.colno === 'number') shaped.colno = frame.colno;
  return shaped;
}
