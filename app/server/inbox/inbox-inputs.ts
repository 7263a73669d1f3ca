/**
 * What the /errors pages ask of the server, one flow: their URLs' search params (the text a plain
 * GET form sends), then the server functions' inputs those become (valibot), shared by the pages
 * that build them and the functions that check them (./inbox.functions.ts). Pure.
 */
import * as v from 'valibot';
import { normaliseEventId } from './envelope';
import type { IssueSummary } from './store/inbox-reads.server';
import { TRIAGE_ACTION_NAMES, type TriageActionName } from './triage';

export const ISSUES_PAGE_SIZE = 50;
/** An issue's events listed on its page at a time, newest first. */
export const ISSUE_EVENTS_PAGE_SIZE = 20;
export const ISSUE_SORTS = ['last-seen', 'first-seen', 'count'] as const;
/**
 * Each sort's order, by IssueSummary's fields, all descending; the id last makes it total, so a
 * cursor names one place in it (the read API's paging, ./api/inbox-api-protocol.ts).
 */
export const ISSUE_ORDER = {
  'last-seen': ['lastSeen', 'id'],
  'first-seen': ['firstSeen', 'id'],
  count: ['count', 'lastSeen', 'id'],
} as const satisfies Record<(typeof ISSUE_SORTS)[number], readonly (keyof IssueSummary)[]>;
/** What the status filter may ask for; unset is unresolved and resolved (ignored hidden). */
export const STATUS_FILTERS = ['unresolved', 'resolved', 'ignored', 'all'] as const;
/** Longest filter or search text: environments and releases are at most 200 in Sentry. */
export const MAX_FILTER_TEXT = 200;

const filterText = v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_FILTER_TEXT));

export const IssueListInput = v.object({
  page: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000)),
  sort: v.optional(v.picklist(ISSUE_SORTS)),
  status: v.optional(v.picklist(STATUS_FILTERS)),
  environment: v.optional(filterText),
  release: v.optional(filterText),
  search: v.optional(filterText),
});
export type IssueListFilters = v.InferOutput<typeof IssueListInput>;

const issueId = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER));
const storedEventId = v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/));

/** `before`: the issue's list of events starts after this event (keyset paging). */
export const IssueInput = v.object({
  issueId,
  eventId: v.optional(storedEventId),
  before: v.optional(storedEventId),
});

// Any text up to a sane length: an id that names no event is a 404, not a failure.
export const InboxEventInput = v.object({
  eventId: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
});

const issueIdText = v.pipe(v.string(), v.regex(/^[1-9]\d{0,15}$/), v.transform(Number), issueId);
const formText = v.pipe(v.string(), v.maxLength(MAX_FILTER_TEXT));

/**
 * A triage form's fields (../triage.ts), from an issue's page or the list's bulk form: the
 * action; the issues ticked (at most a page of them: ids are never trusted beyond the page), or
 * `scope=matching` for every issue the list's search (`q`, `status`, `environment`, `release`,
 * sent along) matches, run again on the server; `confirm=delete` for a delete; where to go back
 * to (`from`, `event`, `sort`).
 */
export const TriageInput = v.object({
  action: v.picklist(TRIAGE_ACTION_NAMES),
  issueId: v.optional(v.pipe(v.array(issueIdText), v.maxLength(ISSUES_PAGE_SIZE)), []),
  scope: v.optional(v.picklist(['selected', 'matching']), 'selected'),
  confirm: v.optional(v.literal('delete')),
  from: v.optional(v.picklist(['list', 'issue']), 'list'),
  event: v.optional(storedEventId),
  q: v.optional(formText),
  status: v.optional(formText),
  environment: v.optional(formText),
  release: v.optional(formText),
  sort: v.optional(formText),
});
export type TriageFields = v.InferOutput<typeof TriageInput>;

/**
 * A form post's fields as the input takes them: every `issueId` ticked (a plain object keeps one
 * of a repeated key), an empty field left out (a hidden filter that is not set).
 */
export function triageFieldsOf(input: unknown): unknown {
  if (!(input instanceof FormData)) return input;
  const fields: Record<string, unknown> = {};
  for (const [key, value] of input) {
    if (key === 'issueId' || typeof value !== 'string' || value === '') continue;
    fields[key] ??= value;
  }
  fields.issueId = input.getAll('issueId').filter((value) => typeof value === 'string');
  return fields;
}

/** The confirmation the clear form sends: without it nothing is deleted. */
export const ClearInboxInput = v.object({ confirm: v.literal('clear') });

/** The "Send a test alert" form's one field. */
export const SendTestAlertInput = v.object({ send: v.literal('test') });

/**
 * The /errors pages' URLs. Search params are the text a plain GET form sends (app/router.tsx):
 * an empty field means "not set"; anything else must be a value the page could have offered, or
 * the page is the not-found page, as for a page number past the last. Pure.
 */
const LIST_KEYS = ['page', 'sort', 'status', 'environment', 'release', 'q'] as const;
type ListKey = (typeof LIST_KEYS)[number];

/** The list's search params as given, each a string (a repeated key keeps its first value). */
export type IssueListSearch = Partial<Record<ListKey, string>> & {
  confirm?: 'clear';
  cleared?: number;
  /** What a triage form did (`did`) and to how many issues (`changed`), for its notice. */
  did?: TriageActionName;
  changed?: number;
};

export function issueListSearchOf(search: Record<string, unknown>): IssueListSearch {
  const picked: IssueListSearch = {};
  for (const key of LIST_KEYS) {
    const value = firstText(search[key]);
    if (value !== undefined) picked[key] = value;
  }
  // A bad `confirm` or `cleared` is dropped: they only add a line to the page.
  if (firstText(search.confirm) === 'clear') picked.confirm = 'clear';
  const cleared = firstText(search.cleared);
  if (cleared !== undefined && /^\d{1,15}$/.test(cleared)) picked.cleared = Number(cleared);
  const did = firstText(search.did);
  const changed = firstText(search.changed);
  if (
    did !== undefined &&
    (TRIAGE_ACTION_NAMES as string[]).includes(did) &&
    changed !== undefined &&
    /^\d{1,15}$/.test(changed)
  ) {
    picked.did = did as TriageActionName;
    picked.changed = Number(changed);
  }
  return picked;
}

const text = v.pipe(v.string(), v.maxLength(MAX_FILTER_TEXT));
const ListQuery = v.object({
  page: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,5}$/),
      v.transform(Number),
      v.minValue(1),
      v.maxValue(10_000),
    ),
  ),
  sort: v.optional(v.picklist(ISSUE_SORTS)),
  status: v.optional(v.picklist(STATUS_FILTERS)),
  environment: v.optional(text),
  release: v.optional(text),
  q: v.optional(text),
});

/** What the list asks the server for, or undefined when the URL holds a value it never offers. */
export function issueListFiltersOf(search: IssueListSearch): IssueListFilters | undefined {
  const given = Object.fromEntries(
    LIST_KEYS.flatMap((key) => (search[key] ? [[key, search[key]]] : [])),
  );
  const parsed = v.safeParse(ListQuery, given);
  if (!parsed.success) return undefined;
  const { page = 1, q, ...rest } = parsed.output;
  return { page, ...rest, ...(q === undefined ? {} : { search: q }) };
}

/**
 * The issue page's `?event=` (the event shown) and `?before=` (where its list of events
 * starts), each as given or unset.
 */
export function issueEventOf(search: Record<string, unknown>): { event?: string; before?: string } {
  const picked: { event?: string; before?: string } = {};
  for (const key of ['event', 'before'] as const) {
    const value = firstText(search[key]);
    if (value !== undefined && value !== '') picked[key] = value;
  }
  return picked;
}

/** The issue id in the path, or undefined when it cannot be one. */
export function issueIdOf(param: string): number | undefined {
  return /^[1-9]\d{0,15}$/.test(param) && Number(param) <= Number.MAX_SAFE_INTEGER
    ? Number(param)
    : undefined;
}

/** `?event=` as stored, `null` when none is asked, undefined when it names no possible event. */
export function eventParamOf(event: string | undefined): string | null | undefined {
  if (event === undefined) return null;
  return normaliseEventId(event);
}

function firstText(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
}
