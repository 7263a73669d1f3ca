/**
 * An event's `logentry` as Relay normalises it (`normalize_logentry`,
 * https://github.com/getsentry/relay/blob/master/relay-event-normalization/src/normalize/logentry.rs):
 * with `params` and no `formatted`, the `message` template is formatted; then `message` moves to
 * `formatted` when that is still missing or the same text. The legacy top-level `message` string
 * is a logentry with only `formatted` (Relay reads `message` as an alias of `logentry`).
 *
 * Formatting is the `dynfmt` crate's, which Relay uses
 * (https://github.com/jan-auer/dynfmt/blob/master/src/python.rs and src/curly.rs):
 * - a template with `%` is old-style Python: `%s`, `%d`, `%(name)s`, `%%`, …; `d`, `i`, `u`, `f`,
 *   `g`, `c` and `s` all print the value as it is (numbers as Rust prints them: no exponent);
 *   `r` prints it as JSON; `o`, `x`, `X` need an integer (`#` adds Rust's `0x`/`0o`). Width and
 *   precision are read and not applied.
 * - otherwise a template with `{` takes `{}` (the next parameter), `{0}` and `{name}`.
 * Positions read `params` as a list, names as an object. Any parameter missing, null or of the
 * wrong kind, and the message stays unformatted. Pure; the one formatter of the app (the
 * grouping reads its result too, ./grouping/grouping.ts).
 */
import { isRecord } from '#app/server/inbox/envelope';

/**
 * The logentry Relay keeps, from the event's `logentry` or else its legacy `message`; undefined
 * when there is none or it has neither `message` nor `formatted`. Strings are not cut here.
 */
export function normaliseLogentry(
  logentry: unknown,
  legacyMessage: unknown,
): Record<string, unknown> | undefined {
  const given = logentry ?? legacyMessage;
  if (typeof given === 'string') return { formatted: given };
  if (!isRecord(given)) return undefined;
  const result: Record<string, unknown> = { ...given };
  const message = typeof given.message === 'string' ? given.message : undefined;
  let formatted = typeof given.formatted === 'string' ? given.formatted : undefined;
  if (message === undefined && formatted === undefined) return undefined;
  if (formatted === undefined && message !== undefined && given.params != null) {
    formatted = formatMessage(message, given.params);
  }
  if (formatted === undefined || formatted === message) {
    formatted = message;
    delete result.message;
  }
  result.formatted = formatted;
  return result;
}

/**
 * A template filled in with its params, as Relay does (the `dynfmt` crate): `%s`, `%d`,
 * `%(name)s`, `%%`… when it has a `%`, else `{}`, `{0}`, `{name}` when it has a `{`; undefined
 * when it cannot be filled (a missing param, a list where a map is needed, …), and Relay then
 * shows the template.
 */
export function formatMessage(format: string, params: unknown): string | undefined {
  if (format.includes('%')) return formatWith(format, pythonSpecs(format), params);
  if (format.includes('{')) return formatWith(format, curlySpecs(format), params);
  return undefined;
}

type Position = { auto: true } | { index: number } | { key: string };

interface Spec {
  start: number;
  end: number;
  position: Position;
  /** Python's conversion character, or 's' for curly braces. */
  type: string;
  alternate: boolean;
}

/** Formats spec by spec: one failure fails the whole message, as dynfmt does. */
function formatWith(
  format: string,
  specs: Spec[] | undefined,
  params: unknown,
): string | undefined {
  if (!specs) return undefined;
  if (specs.length === 0) return format;
  let out = '';
  let last = 0;
  let next = 0;
  for (const spec of specs) {
    out += format.slice(last, spec.start);
    last = spec.end;
    if (spec.type === '%') {
      out += '%';
      continue;
    }
    let arg: unknown;
    const position = spec.position;
    if ('key' in position) {
      if (!isPlainObject(params) || !Object.hasOwn(params, position.key)) return undefined;
      arg = params[position.key];
    } else {
      const index = 'index' in position ? position.index : next++;
      if (!Array.isArray(params) || index >= params.length) return undefined;
      arg = params[index];
    }
    // Relay reads a null param as a missing one.
    if (arg === null || arg === undefined) return undefined;
    const text = formatArgument(arg, spec);
    if (text === undefined) return undefined;
    out += text;
  }
  return out + format.slice(last);
}

const WORD_CHAR = /[\p{L}\p{M}\p{Nd}\p{Pc}]/u;
const PY_TYPES = new Set('diouxXeEfFgGcrs%|');
const PY_FLAGS = new Set('#|0- +');
const PY_LENGTH = new Set('hlL|');

/**
 * dynfmt's `PythonFormat` specs, parsed by hand rather than with its regex so a long run of
 * digits after a `%` cannot make it backtrack: `%`, an optional `(key)`, flags, width, an
 * optional precision after any one character, length modifiers, then the conversion type.
 * Where no spec starts at a `%`, the `%` is text, as with the regex.
 */
function pythonSpecs(format: string): Spec[] | undefined {
  const specs: Spec[] = [];
  let from = 0;
  for (;;) {
    const start = format.indexOf('%', from);
    if (start < 0) return specs;
    const spec = pythonSpecAt(format, start);
    if (spec === null) {
      from = start + 1;
      continue;
    }
    // dynfmt fails on a `|` conversion and panics on a `|` flag: no formatting either way.
    if (spec === undefined) return undefined;
    specs.push(spec);
    from = spec.end;
  }
}

function pythonSpecAt(format: string, start: number): Spec | null | undefined {
  let i = start + 1;
  let key: string | undefined;
  if (format[i] === '(') {
    let j = i + 1;
    while (j < format.length && WORD_CHAR.test(format[j] as string)) j++;
    if (j > i + 1 && format[j] === ')') {
      key = format.slice(i + 1, j);
      i = j + 1;
    }
  }
  const flagsStart = i;
  while (i < format.length && PY_FLAGS.has(format[i] as string)) i++;
  const flags = format.slice(flagsStart, i);
  i = skipCount(format, i);
  const tail = (at: number): { end: number; type: string } | null => {
    let k = at;
    while (k < format.length && PY_LENGTH.has(format[k] as string)) k++;
    const type = format[k];
    return type !== undefined && PY_TYPES.has(type) ? { end: k + 1, type } : null;
  };
  // The regex first tries a precision (any character but a newline, then a count), then none.
  let found: { end: number; type: string } | null = null;
  if (i < format.length && format[i] !== '\n') {
    const afterCount = skipCount(format, i + 1);
    if (afterCount > i + 1) found = tail(afterCount);
  }
  found ??= tail(i);
  if (!found) return null;
  if (found.type === '|' || flags.includes('|')) return undefined;
  return {
    start,
    end: found.end,
    position: key === undefined ? { auto: true } : { key },
    type: found.type,
    alternate: flags.includes('#'),
  };
}

/** Past a `*` or a run of digits, if there is one. */
function skipCount(format: string, at: number): number {
  if (format[at] === '*') return at + 1;
  let i = at;
  while (i < format.length && (format[i] as string) >= '0' && (format[i] as string) <= '9') i++;
  return i;
}

/** dynfmt's `SimpleCurlyFormat`: `{}`, `{0}`, `{name}`; no escapes. */
function curlySpecs(format: string): Spec[] {
  const specs: Spec[] = [];
  for (const match of format.matchAll(/\{([\p{L}\p{M}\p{Nd}\p{Pc}]+)?\}/gu)) {
    const key = match[1];
    const position: Position =
      key === undefined ? { auto: true } : /^\d+$/.test(key) ? { index: Number(key) } : { key };
    const start = match.index;
    specs.push({ start, end: start + match[0].length, position, type: 's', alternate: false });
  }
  return specs;
}

/**
 * One argument as dynfmt writes it: strings, numbers and booleans as they read, null as "null",
 * lists and maps as compact JSON; `%r` as JSON; `%x`/`%o` only for whole numbers, `%e` only
 * for fractions. Anything else fails the whole message.
 */
function formatArgument(arg: unknown, spec: Spec): string | undefined {
  const type = spec.type;
  const json = (value: unknown) => JSON.stringify(value, null, spec.alternate ? 2 : undefined);
  if (type === 'r') return json(arg);
  if ('xXo'.includes(type)) {
    if (typeof arg !== 'number' || !Number.isInteger(arg)) return undefined;
    // Rust prints a negative number's two's complement for hex and octal.
    const value = arg < 0 ? BigInt.asUintN(64, BigInt(arg)) : BigInt(arg);
    const digits = value.toString(type === 'o' ? 8 : 16);
    const text = type === 'X' ? digits.toUpperCase() : digits;
    return spec.alternate ? (type === 'o' ? '0o' : '0x') + text : text;
  }
  if ('eE'.includes(type)) {
    if (typeof arg !== 'number' || Number.isInteger(arg)) return undefined;
    const text = rustExp(arg);
    return type === 'E' ? text.toUpperCase() : text;
  }
  if (typeof arg === 'string') return arg;
  if (typeof arg === 'boolean') return String(arg);
  if (typeof arg === 'number') return rustNumber(arg);
  if (typeof arg === 'object') return json(arg);
  return undefined;
}

/** Rust's `Display` for a JSON number: never an exponent ("0.0000001", not "1e-7"). */
function rustNumber(value: number): string {
  const text = String(value);
  const at = text.indexOf('e');
  if (at < 0) return text;
  const sign = value < 0 ? '-' : '';
  const digits = text.slice(sign.length, at).replace('.', '');
  const pointAt = text.slice(sign.length, at).indexOf('.');
  const point = (pointAt < 0 ? at - sign.length : pointAt) + Number(text.slice(at + 1));
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Rust's `{:e}`: "1.5e3", "1e-7". */
function rustExp(value: number): string {
  const [mantissa, exponent] = value.toExponential().split('e');
  return `${mantissa}e${Number(exponent)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
