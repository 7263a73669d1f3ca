/**
 * A parsed search (../issue-search.ts) as the SQL conditions on `issues` that listIssues adds to
 * its WHERE, each read through an index (the query-plan test in
 * tests/unit/server/inbox/store/issue-search-sql.test.ts): never a scan of events or payloads.
 * Pure.
 */
import type { SearchField, SearchStatus, SearchTerm } from '../issue-search';

/** Tag keys the store remembers (the `tag_keys` table, migration 8); past it every key is taken. */
export const MAX_KNOWN_TAG_KEYS = 1000;

/**
 * What each search key reads, given the name of the bound value (`@p0`): the one place a key
 * meets the schema. `user:` reads the users (`issue_users`, by its key index): a value
 * is Sentry's `sentry:user` key (`id:42`, `email:a@b.c`) or what follows its prefix (`42`).
 */
const FIELD_SQL: Record<SearchField, (value: string) => string> = {
  release: (value) => `id IN (SELECT issue_id FROM issue_releases WHERE release = ${value})`,
  environment: (value) =>
    `id IN (SELECT issue_id FROM issue_environments WHERE environment = ${value})`,
  level: (value) => `level = ${value}`,
  // Every stored event's digest (the partial index events_digest), evicted with the event.
  digest: (value) => `id IN (SELECT issue_id FROM events WHERE digest = ${value})`,
  user: (value) =>
    `id IN (SELECT issue_id FROM issue_users WHERE user_key IN (${value}, 'id:' || ${value},
      'username:' || ${value}, 'email:' || ${value}, 'ip:' || ${value}))`,
};

/** An issue with the tag: a lookup of its primary key (issue, key, value) per issue. */
function tagSql(key: string, value: string): string {
  return `EXISTS (SELECT 1 FROM issue_tags WHERE issue_id = issues.id AND key = ${key} AND value = ${value})`;
}

/**
 * Each status as the pages show it now (../triage.ts `statusNow`): an ignored issue whose time
 * mute has passed is unresolved, though its row still says ignored until an event comes to end
 * the mute (decision 1221). `now` is the bound time's name.
 */
export function statusSql(status: SearchStatus, now: () => string): string {
  const mutePassed = () =>
    `(status = 'ignored' AND mute_kind = 'time' AND mute_target <= ${now()})`;
  switch (status) {
    case 'unresolved':
      return `(status = 'unresolved' OR ${mutePassed()})`;
    case 'resolved':
      return "status = 'resolved'";
    case 'ignored':
      return `(status = 'ignored' AND NOT coalesce(${mutePassed()}, 0))`;
    // Seen again after it was resolved, or its mute ended: unresolved since, until it is
    // resolved or ignored again.
    case 'regressed':
      return 'regressed = 1';
  }
}

/**
 * Free text: the trigram indexes over the issue's title, culprit and message, and over its page
 * URLs (migration 8), as an FTS5 phrase (in double quotes, its own quotes doubled). A trigram index finds three characters or more; shorter text
 * is looked for in the issues' own columns and page URLs (a scan of those, not of events).
 */
function textSql(text: string, bind: (value: string) => string): string {
  if ([...text].length >= 3) {
    const value = bind(`"${text.replaceAll('"', '""')}"`);
    return `(id IN (SELECT rowid FROM issue_text WHERE issue_text MATCH ${value})
      OR id IN (SELECT rowid FROM issue_url_text WHERE issue_url_text MATCH ${value}))`;
  }
  const value = bind(text);
  return `(instr(lower(title), lower(${value})) > 0 OR instr(lower(culprit), lower(${value})) > 0
      OR instr(lower(message), lower(${value})) > 0
      OR id IN (SELECT issue_id FROM issue_urls WHERE instr(lower(url), lower(${value})) > 0))`;
}

export interface SearchSql {
  /** Conditions on `issues`, all to hold. */
  where: string[];
  /** Their bound values, by name (`p0`, `p1`, …, and `now` when a status reads it). */
  params: Record<string, string | number>;
  /** The tag keys the terms name, which the store checks it has seen. */
  tagKeys: string[];
  /** Some term names a status: the default list's "ignored hidden" does not apply. */
  namesStatus: boolean;
}

/** The terms as conditions; `now` is when a time mute counts as passed. */
export function searchSqlOf(terms: readonly SearchTerm[], now: number): SearchSql {
  const params: Record<string, string | number> = {};
  const bindNow = () => {
    params.now = now;
    return '@now';
  };
  const bind = (value: string) => {
    const name = `p${Object.keys(params).length}`;
    params[name] = value;
    return `@${name}`;
  };
  const anyOf = (parts: string[]) =>
    parts.length === 1 ? (parts[0] as string) : `(${parts.join(' OR ')})`;
  const where: string[] = [];
  const tagKeys: string[] = [];
  let namesStatus = false;
  for (const term of terms) {
    switch (term.kind) {
      case 'text':
        where.push(textSql(term.text, bind));
        break;
      case 'digest-or-text':
        where.push(`(${FIELD_SQL.digest(bind(term.digest))} OR ${textSql(term.digest, bind)})`);
        break;
      case 'status': {
        namesStatus = true;
        const sql = anyOf(term.statuses.map((status) => statusSql(status, bindNow)));
        where.push(term.negated ? `NOT (${sql})` : sql);
        break;
      }
      case 'field': {
        const sql = anyOf(term.values.map((value) => FIELD_SQL[term.field](bind(value))));
        where.push(term.negated ? `NOT (${sql})` : sql);
        break;
      }
      case 'tag': {
        tagKeys.push(term.key);
        const key = bind(term.key);
        const sql = anyOf(term.values.map((value) => tagSql(key, bind(value))));
        where.push(term.negated ? `NOT (${sql})` : sql);
        break;
      }
    }
  }
  return { where, params, tagKeys, namesStatus };
}
