/**
 * The /errors pages' URLs. Search params are the text a plain GET form sends (app/router.tsx):
 * an empty field means "not set"; anything else must be a value the page could have offered, or
 * the page is the not-found page, as for a page number past the last. Pure. (The `-` prefix
 * keeps this file out of the route tree.)
 */
import * as v from 'valibot';
import {
  ISSUE_SORTS,
  type IssueListFilters,
  MAX_FILTER_TEXT,
  STATUS_FILTERS,
} from '#app/server/inbox/inbox-inputs';
import { normaliseEventId } from '#app/server/inbox/protocol-values';

const LIST_KEYS = ['page', 'sort', 'status', 'environment', 'release', 'q'] as const;
type ListKey = (typeof LIST_KEYS)[number];

/** The list's search params as given, each a string (a repeated key keeps its first value). */
export type IssueListSearch = Partial<Record<ListKey, string>> & {
  confirm?: 'clear';
  cleared?: number;
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

/** The issue page's `?event=`: unset, a stored event id, or undefined for one no event has. */
export function issueEventOf(search: Record<string, unknown>): { event?: string } {
  const event = firstText(search.event);
  return event === undefined || event === '' ? {} : { event };
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
