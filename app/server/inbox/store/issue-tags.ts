/**
 * The tags an issue keeps for its breakdown (the page): MAX_TAG_KEYS keys, each with
 * MAX_TAG_VALUES values; past a kept key's cap its new values count as "(other)", keys past the
 * issue's cap are not kept, so invented keys and values cannot swell an issue (issue 32).
 *
 * The database (./inbox-database.server.ts) applies this rule in SQL to the events of an issue
 * it has (`countTag`, which reads the tag rows for every tag), and through
 * `firstEventTags` to the event that opens an issue: with no rows yet the rule needs nothing
 * from the database, and a flood of new issues with 30 tags each spent most of the ingest
 * thread's time in those reads (decision 1015).
 */

/** Tag values kept per key and issue; the rest are summed under "(other)". */
export const MAX_TAG_VALUES = 100;
/** Tag keys kept per issue (the breakdown's own five and the event's tags); later keys are not kept. */
export const MAX_TAG_KEYS = 30;
/** The value counted for what is past a cap (the database's release, environment and health caps too). */
export const OTHER_TAG_VALUE = '(other)';

export interface TagCount {
  key: string;
  value: string;
  count: number;
}

/**
 * An issue's tag rows after its first event, as `countTag` would leave them tag after tag on an
 * issue that has none: a value is counted when its key has room (a new key while the issue has
 * room for keys), else as "(other)" of a kept key, else not at all. `urls`: the page URLs
 * counted under their own value, which search reads.
 */
export function firstEventTags(tags: ReadonlyArray<readonly [string, string]>): {
  counts: TagCount[];
  urls: string[];
} {
  const keys = new Map<string, Map<string, number>>();
  const urls = new Set<string>();
  for (const [key, value] of tags) {
    const values = keys.get(key);
    const taken =
      values?.has(value) ||
      ((values?.size ?? 0) < MAX_TAG_VALUES &&
        (values !== undefined || keys.size < MAX_TAG_KEYS)) ||
      (value === OTHER_TAG_VALUE && values !== undefined);
    if (taken) {
      const kept = values ?? new Map<string, number>();
      keys.set(key, kept);
      kept.set(value, (kept.get(value) ?? 0) + 1);
      if (key === 'url') urls.add(value);
    } else if (values) {
      values.set(OTHER_TAG_VALUE, (values.get(OTHER_TAG_VALUE) ?? 0) + 1);
    }
  }
  const counts = [...keys].flatMap(([key, values]) =>
    [...values].map(([value, count]) => ({ key, value, count })),
  );
  return { counts, urls: [...urls] };
}
