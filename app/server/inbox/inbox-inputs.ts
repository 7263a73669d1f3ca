/**
 * What the /errors pages may ask the server for: the server functions' inputs (valibot), shared
 * by the pages that build them and the functions that check them (../inbox.functions.ts). Pure.
 */
import * as v from 'valibot';

export const ISSUES_PAGE_SIZE = 50;
export const ISSUE_SORTS = ['last-seen', 'first-seen', 'count'] as const;
/** What the status filter may ask for; unset is unresolved and resolved (ignored hidden). */
export const STATUS_FILTERS = ['unresolved', 'resolved', 'ignored', 'all'] as const;
export const ISSUE_STATUSES = ['unresolved', 'resolved', 'ignored'] as const;
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

export const IssueInput = v.object({ issueId, eventId: v.optional(storedEventId) });

// Any text up to a sane length: an id that names no event is a 404, not a failure.
export const InboxEventInput = v.object({
  eventId: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
});

/** Form fields are text: the issue id in digits, the event (to come back to) as stored. */
export const IssueStatusInput = v.object({
  issueId: v.pipe(v.string(), v.regex(/^[1-9]\d{0,15}$/), v.transform(Number), issueId),
  status: v.picklist(ISSUE_STATUSES),
  event: v.optional(storedEventId),
});

/** The confirmation the clear form sends: without it nothing is deleted. */
export const ClearInboxInput = v.object({ confirm: v.literal('clear') });
