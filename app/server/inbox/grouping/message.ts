/**
 * Messages as Sentry groups and shows them: the parameterisation that turns "order 1231 failed"
 * into "order <int> failed" before hashing, and Relay's formatting of a `logentry` template with
 * its params. Pure; used by ./grouping.ts and by the pages that show a message.
 *
 * Sources, read at these versions (Sentry is FSL, Relay is FSL; nothing is copied but the rules):
 * - getsentry/sentry src/sentry/grouping/parameterization.py, the version whose
 *   tests/sentry/grouping/test_parameterization.py cases our table test repeats (int is
 *   `-\d+\b | \b\d+\b`, hex without 0x needs 8+ digits and a number).
 * - getsentry/sentry src/sentry/grouping/utils.py `normalize_message_for_grouping`: the first
 *   two non-blank lines, "..." when anything was cut, then the parameterisation.
 * - getsentry/relay relay-event-normalization/src/normalize/logentry.rs and the dynfmt crate it
 *   uses (`PythonFormat`, `SimpleCurlyFormat`).
 *
 * Python's `re` is Unicode-aware (`\d`, `\w`, `\b`, `\s` match beyond ASCII); JavaScript's are
 * not, so they are spelled out below: without that, "订单123" would be "订单<int>" here and not
 * in Sentry. Every pattern is linear or bounded per start position: see the hostile-input test.
 */

// Python's `str.isspace()` characters, which `\s` and `str.split()` use.
export const PY_SPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const S = `[${PY_SPACE}]`;
const NOT_S = `[^${PY_SPACE}]`;
/** Python's `\w` for str patterns: letters, numbers and the underscore. */
const W = '[\\p{L}\\p{N}_]';
const D = '\\p{Nd}';
/** Python's `\b`: a change between `\w` and not. */
const B = `(?:(?<=${W})(?!${W})|(?<!${W})(?=${W}))`;

const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const DAY = '(?:Sun|Mon|Tue|Wed|Thu|Fri|Sat)';
const ZONE = '(?:UT|GMT|(?:E|C|M|P)(?:ST|DT)|[A-IK-Z])';
const OCTET = '(?:25[0-5]|(?:2[0-4]|1{0,1}[0-9]){0,1}[0-9])';
const H4 = '[0-9a-fA-F]{1,4}';
const TLDS =
  'COM|NET|ORG|JP|DE|UK|FR|BR|IT|RU|ES|ME|GOV|PL|CA|AU|CN|CO|IN|NL|EDU|INFO|EU|CH|ID|AT|KR|CZ|MX|BE|TV|SE|TR|TW|AL|UA|IR|VN|CL|SK|LY|CC|TO|NO|FI|US|PT|DK|AR|HU|TK|GR|IL|NEWS|RO|MY|BIZ|IE|ZA|NZ|SG|EE|TH|IO|XYZ|PE|BG|HK|RS|LT|LINK|PH|CLUB|SI|SITE|MOBI|BY|CAT|WIKI|LA|GA|XXX|CF|HR|NG|JOBS|ONLINE|KZ|UG|GQ|AE|IS|LV|PRO|FM|TIPS|MS|SA|APP';

/**
 * Sentry's patterns after `email` and `hostname`, in Sentry's order: at each position the first
 * that matches wins. `email` and `hostname` come first in Sentry's list; they are matched by
 * hand below, because as regexes they rescan a whole run from each of its positions.
 */
const URL_PATTERN = `${B}(?:wss?|https?|ftp)://[^${PY_SPACE}/$.?#][^\\n]${NOT_S}*`;
const LATER_PATTERNS: ReadonlyArray<readonly [name: string, pattern: string]> = [
  [
    'ip',
    `(?<![0-9a-zA-Z_])(?:(?:${H4}:){7,7}${H4}|(?:${H4}:){1,7}:|(?:${H4}:){1,6}:${H4}|` +
      `(?:${H4}:){1,5}(?::${H4}){1,2}|(?:${H4}:){1,4}(?::${H4}){1,3}|(?:${H4}:){1,3}(?::${H4}){1,4}|` +
      `(?:${H4}:){1,2}(?::${H4}){1,5}|${H4}:(?:(?::${H4}){1,6})|:(?:(?::${H4}){1,7}|:)|` +
      `fe80:(?::[0-9a-fA-F]{0,4}){0,4}%[0-9a-zA-Z]{1,}|` +
      `::(?:ffff(?::0{1,4}){0,1}:){0,1}(?:${OCTET}\\.){3,3}${OCTET}|` +
      `(?:${H4}:){1,4}:(?:${OCTET}\\.){3,3}${OCTET}${B})(?![0-9a-zA-Z])` +
      `|(?:${B}(?:${OCTET}\\.){3,3}${OCTET}${B})`,
  ],
  [
    'traceparent',
    `(?:${B}00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]${B})|(?:${B}1-[0-9a-f]{8}-[0-9a-f]{24}${B})`,
  ],
  ['uuid', `${B}[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}${B}`],
  ['sha1', `${B}[0-9a-fA-F]{40}${B}`],
  ['md5', `${B}[0-9a-fA-F]{32}${B}`],
  [
    'date',
    [
      // RFC822, RFC1123, RFC1123Z
      `${DAY},${S}${D}{1,2}${S}${MONTH}${S}${D}{2,4}${S}${D}{1,2}:${D}{1,2}(?::${D}{1,2})?${S}(?:[\\-+]${D}{2}[0-5]${D}|${ZONE})`,
      // "Mon Jan 02, 1999", "Jan 02, 1999"
      `(?:${DAY}${S})?${MONTH}${S}[0-3]${D},${S}${D}{2,4}`,
      // RFC850
      `(?:Sun|Sunday|Mon|Monday|Tue|Tuesday|Wed|Wednesday|Thu|Thursday|Fri|Friday|Sat|Saturday),${S}${D}{2}-${MONTH}-${D}{2}${S}${D}{2}:${D}{2}:${D}{2}${S}${ZONE}`,
      // RFC3339, RFC3339Nano
      `${D}{4}-${D}{2}-${D}{2}T${D}{2}:${D}{2}:${D}{2}(?:\\.${D}+)?Z?(?:[+\\-]?${D}{2}:${D}{2})?`,
      // JavaScript
      `${DAY}${S}${MONTH}${S}${D}{2}${S}${D}{4}${S}${D}{2}:${D}{2}:${D}{2}${S}GMT[+\\-]${D}{4}(?:${S}\\([^)]+\\))?`,
      // Datetime with an offset, then without
      `${D}{4}-?[01]${D}-?[0-3]${D}[${PY_SPACE}T][0-2]${D}:?[0-5]${D}:?[0-5]${D}\\.${D}+(?:[+\\-][0-2]${D}:?[0-5]${D}|Z)`,
      `${D}{4}-?[01]${D}-?[0-3]${D}[${PY_SPACE}T][0-2]${D}:?[0-5]${D}:?[0-5]${D}(?:[+\\-][0-2]${D}:?[0-5]${D}|Z)`,
      `${D}{4}-?[01]${D}-?[0-3]${D}[${PY_SPACE}T][0-2]${D}:?[0-5]${D}(?:[+\\-][0-2]${D}:?[0-5]${D}|Z)`,
      `${D}{4}-?[01]${D}-?[0-3]${D}[${PY_SPACE}T][0-2]${D}:?[0-5]${D}:?[0-5]${D}\\.${D}+`,
      `${D}{4}-?[01]${D}-?[0-3]${D}[${PY_SPACE}T][0-2]${D}:?[0-5]${D}:?[0-5]${D}`,
      `${D}{4}-?[01]${D}-?[0-3]${D}[${PY_SPACE}T][0-2]${D}:?[0-5]${D}`,
      // Kitchen
      `[1-9]${D}?:${D}{2}(?::${D}{2})?(?:${S}?[aApP][Mm])?`,
      // Date, time
      `${D}{4}-[01]${D}-[0-3]${D}`,
      `[0-2]${D}:[0-5]${D}:[0-5]${D}`,
      // Old formats
      `${B}(?:${DAY}${S}+)?${MONTH}${S}+${D}{1,2}${S}+${D}{2}:${D}{2}:${D}{2}${S}+${D}{4}`,
      `${B}(?:${DAY},${S}+)?(?:0[1-9]|[1-2]?${D}|3[01])${S}+${MONTH}${S}+(?:19${D}{2}|[2-9]${D}{3})${S}+(?:2[0-3]|[0-1]${D}):[0-5]${D}(?::(?:60|[0-5]${D}))?${S}+(?:[\\-+]${D}{2}[0-5]${D}|${ZONE})`,
      // Python's repr of a datetime
      'datetime[^\\n]datetime\\([^\\n]*?\\)',
    ].join('|'),
  ],
  // `duration` goes here, matched in `parameterize`: its `\d+(\.\d+)?s\b` has no `\b` before
  // the digits, so as a regex it would rescan a run of digits from each of them.
  ['duration', ''],
  ['swift_txn_id', `${B}tx[0-9a-f]{21}-[0-9a-f]{10}${NOT_S}*`],
  [
    'hex',
    `${B}0[xX][0-9a-fA-F]+${B}|${B}(?=[a-f]*[0-9])[0-9a-f]{8,128}${B}|${B}(?=[A-F]*[0-9])[0-9A-F]{8,128}${B}`,
  ],
  ['git_sha', `${B}(?=[a-f]*[0-9])(?=[0-9]*[a-f])[0-9a-f]{7}${B}`],
  ['float', `-${D}+\\.${D}+${B}|${B}${D}+\\.${D}+${B}`],
  ['int', `-${D}+${B}|${B}${D}+${B}`],
  // Only the value half of `key=value` pairs.
  ['quoted_str', `(?<==)(?:'[^']+'|"[^"]+")`],
  ['bool', '(?<==)(?:True|true|False|false)'],
];

const SPLIT = LATER_PATTERNS.findIndex(([name]) => name === 'duration');
const URL_AT = new RegExp(URL_PATTERN, 'uy');
const BEFORE_DURATION = sticky(LATER_PATTERNS.slice(0, SPLIT));
const AFTER_DURATION = sticky(LATER_PATTERNS.slice(SPLIT + 1));
/** `duration`'s first half: `\b\d+ms`. */
const DURATION_MS_AT = new RegExp(`${B}${D}+ms`, 'uy');

function sticky(patterns: ReadonlyArray<readonly [name: string, pattern: string]>) {
  const names = patterns.map(([name]) => name);
  const regex = new RegExp(patterns.map(([name, p]) => `(?<${name}>${p})`).join('|'), 'uy');
  return { names, regex };
}

/** The first of `patterns` to match at `pos`: its name and end. */
function matchAt(
  patterns: ReturnType<typeof sticky>,
  text: string,
  pos: number,
): { name: string; end: number } | undefined {
  patterns.regex.lastIndex = pos;
  const match = patterns.regex.exec(text);
  if (!match?.groups || match[0] === '') return undefined;
  const name = patterns.names.find((key) => match.groups?.[key] !== undefined) ?? '';
  return { name, end: patterns.regex.lastIndex };
}

const EMAIL_LOCAL = /[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]/;
const DOMAIN_CHAR = /[a-zA-Z0-9-]/;
const LABEL_CHAR = DOMAIN_CHAR;
const TLD_LIST = [...TLDS.split('|'), ...TLDS.toLowerCase().split('|')];
const WORD = new RegExp(W, 'u');
const DIGIT = new RegExp(D, 'u');

/**
 * Sentry's `Parameterizer.parameterize`: every match replaced by `<kind>`, with Sentry's kinds
 * (`<int>`, `<hex>`, `<uuid>`, `<date>`, `<ip>`, `<email>`, `<url>`, …). Scans as Python's
 * `re.sub` does, one code point at a time, trying Sentry's patterns in Sentry's order; `email`
 * and `hostname` are decided from tables built in one pass, so the scan stays linear.
 */
export function parameterize(text: string): string {
  const email = emailEnds(text);
  const hostname = hostnameEnds(text);
  const seconds = secondsEnds(text);
  let out = '';
  let last = 0;
  let pos = 0;
  while (pos <= text.length) {
    let found: { name: string; end: number } | undefined;
    if ((email[pos] ?? -1) > pos) found = { name: 'email', end: email[pos] as number };
    if (!found) {
      URL_AT.lastIndex = pos;
      if (URL_AT.exec(text)) found = { name: 'url', end: URL_AT.lastIndex };
    }
    if (!found && (hostname[pos] ?? -1) > pos && isBoundary(text, pos)) {
      found = { name: 'hostname', end: hostname[pos] as number };
    }
    found ??= matchAt(BEFORE_DURATION, text, pos);
    if (!found) {
      DURATION_MS_AT.lastIndex = pos;
      if (DURATION_MS_AT.exec(text)) found = { name: 'duration', end: DURATION_MS_AT.lastIndex };
      else if ((seconds[pos] ?? -1) > pos)
        found = { name: 'duration', end: seconds[pos] as number };
    }
    found ??= matchAt(AFTER_DURATION, text, pos);
    const end = found?.end ?? -1;
    const name = found?.name ?? '';
    if (end > pos) {
      out += `${text.slice(last, pos)}<${name}>`;
      last = pos = end;
      continue;
    }
    pos += (text.codePointAt(pos) ?? 0) > 0xffff ? 2 : 1;
  }
  return out + text.slice(last);
}

/**
 * Where `[local]+@[domain]+(\.[domain]+)*` ends for a match starting at each position, or
 * undefined. A run of local-part characters has one end, so every start in it shares the answer.
 */
function emailEnds(text: string): Array<number | undefined> {
  const ends: Array<number | undefined> = [];
  if (!text.includes('@')) return ends;
  let runEnd = text.length;
  for (let i = text.length - 1; i >= 0; i--) {
    if (!EMAIL_LOCAL.test(text[i] as string)) {
      runEnd = i;
      continue;
    }
    if (text[runEnd] !== '@') continue;
    let j = runEnd + 1;
    while (j < text.length && DOMAIN_CHAR.test(text[j] as string)) j++;
    if (j === runEnd + 1) continue;
    for (;;) {
      if (text[j] !== '.' || !DOMAIN_CHAR.test(text[j + 1] ?? '')) break;
      j += 2;
      while (j < text.length && DOMAIN_CHAR.test(text[j] as string)) j++;
    }
    ends[i] = j;
  }
  return ends;
}

/**
 * Where `\d+(\.\d+)?s\b` (`duration`'s second half) ends from each position: every start in a
 * run of digits shares the run's answer.
 */
function secondsEnds(text: string): Array<number | undefined> {
  const ends: Array<number | undefined> = [];
  let runEnd = -1;
  let answer: number | undefined;
  for (let i = text.length - 1; i >= 0; i--) {
    if (!DIGIT.test(text[i] as string)) {
      runEnd = -1;
      continue;
    }
    if (runEnd < 0) {
      runEnd = i + 1;
      let j = runEnd;
      if (text[j] === '.' && DIGIT.test(text[j + 1] ?? '')) {
        j += 1;
        while (j < text.length && DIGIT.test(text[j] as string)) j++;
      }
      // Skipping `(\.\d+)?` cannot help: the character after the digits would be the dot.
      answer = text[j] === 's' && isBoundary(text, j + 1) ? j + 1 : undefined;
    }
    ends[i] = answer;
  }
  return ends;
}

/**
 * Where `([label]{1,63}\.)+?(TLD)\b` ends from each position (the `\b` before it is checked by
 * the caller). Labels stop at dots, so from a position there is one chain of labels; the lazy
 * `+?` takes the first TLD along it. Built from the right, each chain is walked once.
 */
function hostnameEnds(text: string): Array<number | undefined> {
  const ends: Array<number | undefined> = [];
  if (!text.includes('.')) return ends;
  let labelEnd = -1;
  for (let i = text.length - 1; i >= 0; i--) {
    if (!LABEL_CHAR.test(text[i] as string)) {
      labelEnd = i;
      continue;
    }
    if (labelEnd < 0 || text[labelEnd] !== '.' || labelEnd - i > 63) continue;
    const next = labelEnd + 1;
    ends[i] = tldEnd(text, next) ?? ends[next];
  }
  return ends;
}

function tldEnd(text: string, at: number): number | undefined {
  for (const tld of TLD_LIST) {
    if (text.startsWith(tld, at) && isBoundary(text, at + tld.length)) return at + tld.length;
  }
  return undefined;
}

/** Python's `\b` at a position. */
function isBoundary(text: string, at: number): boolean {
  const before = at > 0 && WORD.test(String.fromCodePoint(codePointBefore(text, at)));
  const after = at < text.length && WORD.test(String.fromCodePoint(text.codePointAt(at) ?? 0));
  return before !== after;
}

function codePointBefore(text: string, at: number): number {
  const low = text.charCodeAt(at - 1);
  if (at >= 2 && low >= 0xdc00 && low <= 0xdfff) {
    const high = text.charCodeAt(at - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(at - 2) ?? low;
  }
  return low;
}

/**
 * Sentry's `normalize_message_for_grouping` for messages and exception values: the first two
 * non-blank lines, "..." if that changed anything, then {@link parameterize}.
 */
export function normalizeMessageForGrouping(message: string): string {
  const kept: string[] = [];
  for (const line of splitLines(message)) {
    if (pyStrip(line) === '') continue;
    kept.push(line);
    if (kept.length === 2) break;
  }
  let trimmed = kept.join('\n');
  if (trimmed !== message) trimmed += '...';
  return parameterize(trimmed);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: Python's line boundaries include \x1c-\x1e
const LINE_BREAK = /\r\n|[\n\v\f\r\x1c-\x1e\x85\u2028\u2029]/u;

/** Python's `str.splitlines()`: its line boundaries, not only `\n`. */
export function splitLines(text: string): string[] {
  const lines = text.split(LINE_BREAK);
  // splitlines() gives no empty last line for a trailing boundary, and nothing for "".
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const EDGE_SPACE = new RegExp(`^${S}+|${S}+$`, 'gu');
const SPACE_RUN = new RegExp(`${S}+`, 'u');

/** Python's `str.strip()`. */
export function pyStrip(text: string): string {
  return text.replace(EDGE_SPACE, '');
}

/** Python's `" ".join(text.split())`: whitespace runs collapsed, ends trimmed. */
export function collapseWhitespace(text: string): string {
  return text.split(SPACE_RUN).filter(Boolean).join(' ');
}
