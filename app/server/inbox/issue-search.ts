/**
 * The /errors search box, read as Sentry's issue search reads it
 * (https://docs.sentry.io/concepts/search/): free text, `key:value` terms, `!key:value` for
 * "not", quoted values (`key:"a b"`), lists (`key:[a, b]`), and `tags[key]:value` for a tag whose
 * key is also a search key. A bare word in the form of the app's digest (computeDigest in
 * app/server/failures/record-failure.server.ts: ten lower-case hex digits) looks for that digest
 * as well as for the text. Words that are not terms make one phrase, as in Sentry's grammar.
 * What cannot be searched is said (`problems`), never dropped. Then the terms as the SQL
 * conditions on `issues` that the list adds to its WHERE (`searchSqlOf`), each read through an
 * index (the query-plan test in tests/unit/server/inbox/store/issue-search.test.ts): never a
 * scan of events or payloads. Pure.
 */

// Issue statuses as `is:` names them; `regressed` is an unresolved issue seen again after it was resolved.
export const SEARCH_STATUSES = ['unresolved', 'resolved', 'ignored', 'regressed'] as const;
export type SearchStatus = (typeof SEARCH_STATUSES)[number];

/** Keys with a meaning of their own; any other key is a tag's. */
export const SEARCH_FIELDS = ['release', 'environment', 'level', 'digest', 'user'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** Sentry's event levels. */
export const SEARCH_LEVELS = ['fatal', 'error', 'warning', 'info', 'debug'] as const;

/** A digest as the app makes it (computeDigest): ten hex digits. */
const DIGEST = /^[0-9a-f]{10}$/i;
/** Sentry's search key: letters, digits, `_`, `.`, `-`; or `tags[…]` for any tag key. */
const KEY = /^(?:tags\[([^\]\s]+)\]|([A-Za-z0-9_.-]+)):/;
/** Sentry calls ignored issues archived; both names are taken. */
const STATUS_ALIASES: Record<string, SearchStatus> = { archived: 'ignored' };

export type SearchTerm =
  /** Words (or a quoted text) found in an issue's title, culprit, message or page URLs. */
  | { kind: 'text'; text: string }
  /** A bare word that may be a digest: the issues with an event of that digest, or with the text. */
  | { kind: 'digest-or-text'; digest: string }
  | { kind: 'status'; statuses: SearchStatus[]; negated: boolean }
  | { kind: 'field'; field: SearchField; values: string[]; negated: boolean }
  | { kind: 'tag'; key: string; values: string[]; negated: boolean };

export interface IssueSearch {
  terms: SearchTerm[];
  /** What cannot be searched, as the page says it ("unknown value for is: whatever"). */
  problems: string[];
}

export function parseIssueSearch(query: string): IssueSearch {
  const terms: SearchTerm[] = [];
  const problems: string[] = [];
  let words: string[] = [];
  const endPhrase = () => {
    if (words.length > 0) terms.push({ kind: 'text', text: words.join(' ') });
    words = [];
  };
  let at = 0;
  while (at < query.length) {
    if (/\s/.test(query[at] as string)) {
      at++;
      continue;
    }
    const negated = query[at] === '!';
    const key = KEY.exec(query.slice(negated ? at + 1 : at));
    // A pasted URL (`https://…/checkout`) is text, not a term of the key `https`.
    if (key && !query.startsWith('//', at + (negated ? 1 : 0) + key[0].length)) {
      endPhrase();
      const valueAt = at + (negated ? 1 : 0) + key[0].length;
      const read = readValues(query, valueAt);
      at = read.end;
      const term = termOf(key[1] ?? key[2] ?? '', key[1] !== undefined, read.values, negated);
      if (typeof term === 'string') problems.push(term);
      else terms.push(term);
      continue;
    }
    if (query[at] === '"') {
      endPhrase();
      const quoted = readQuoted(query, at);
      at = quoted.end;
      if (quoted.text !== '') terms.push({ kind: 'text', text: quoted.text });
      continue;
    }
    const word = readWord(query, at);
    at = word.end;
    if (DIGEST.test(word.text)) {
      endPhrase();
      terms.push({ kind: 'digest-or-text', digest: word.text.toLowerCase() });
    } else {
      words.push(word.text);
    }
  }
  endPhrase();
  return { terms, problems };
}

/** A term from its key and values, or what is wrong with it. */
function termOf(
  key: string,
  explicitTag: boolean,
  values: string[] | undefined,
  negated: boolean,
): SearchTerm | string {
  if (values === undefined || values.length === 0) return `${key}: needs a value`;
  if (explicitTag) return { kind: 'tag', key, values, negated };
  if (key === 'is') {
    const statuses: SearchStatus[] = [];
    for (const value of values) {
      const status = STATUS_ALIASES[value] ?? SEARCH_STATUSES.find((known) => known === value);
      if (!status) return `unknown value for is: ${value} (${SEARCH_STATUSES.join(', ')})`;
      statuses.push(status);
    }
    return { kind: 'status', statuses, negated };
  }
  const field = SEARCH_FIELDS.find((known) => known === key);
  if (!field) return { kind: 'tag', key, values, negated };
  if (field === 'level') {
    const unknown = values.find((value) => !(SEARCH_LEVELS as readonly string[]).includes(value));
    if (unknown !== undefined) {
      return `unknown level ${unknown} (${SEARCH_LEVELS.join(', ')})`;
    }
  }
  return { kind: 'field', field, values: field === 'digest' ? values.map(lower) : values, negated };
}

const lower = (value: string) => value.toLowerCase();

/**
 * A term's value at `at`: quoted, a `[a, b]` list, or up to the next space. Undefined when
 * there is none (`release:` at the end, or before a space).
 */
function readValues(query: string, at: number): { values?: string[]; end: number } {
  const first = query[at];
  if (first === undefined || /\s/.test(first)) return { end: at };
  if (first === '"') {
    const quoted = readQuoted(query, at);
    return { values: [quoted.text], end: quoted.end };
  }
  if (first === '[') {
    const values: string[] = [];
    let i = at + 1;
    while (i < query.length && query[i] !== ']') {
      if (/[\s,]/.test(query[i] as string)) {
        i++;
        continue;
      }
      if (query[i] === '"') {
        const quoted = readQuoted(query, i);
        values.push(quoted.text);
        i = quoted.end;
        continue;
      }
      const start = i;
      while (i < query.length && !/[,\]]/.test(query[i] as string)) i++;
      values.push(query.slice(start, i).trim());
    }
    return { values, end: Math.min(i + 1, query.length) };
  }
  const word = readWord(query, at);
  return { values: [word.text], end: word.end };
}

/** A double-quoted text from `at` (its quote), `\"` and `\\` unescaped; an open quote runs to the end. */
function readQuoted(query: string, at: number): { text: string; end: number } {
  let text = '';
  let i = at + 1;
  while (i < query.length && query[i] !== '"') {
    if (query[i] === '\\' && (query[i + 1] === '"' || query[i + 1] === '\\')) i++;
    text += query[i];
    i++;
  }
  return { text, end: Math.min(i + 1, query.length) };
}

function readWord(query: string, at: number): { text: string; end: number } {
  let end = at;
  while (end < query.length && !/\s/.test(query[end] as string)) end++;
  return { text: query.slice(at, end), end };
}

// The terms as SQL: the one place a search key meets the schema.

/** Tag keys the store remembers (the `tag_keys` table, migration 8); past it every key is taken. */
export const MAX_KNOWN_TAG_KEYS = 1000;

/**
 * What each search key reads, given the name of the bound value (`@p0`): the one place a key
 * meets the schema. `user:` reads the issue's users (`issue_users`, by its key index): a value
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
