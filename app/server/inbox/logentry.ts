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
 *   `g`, `c` and `s` all print the value as it is; `r` prints it as JSON; `o`, `x`, `X` need an
 *   integer. Flags, width and precision are read and not applied.
 * - otherwise a template with `{` takes `{}` (the next parameter), `{0}` and `{name}`.
 * Positions read `params` as a list, names as an object. Any parameter missing, null or of the
 * wrong kind, and the message stays unformatted. Pure.
 */
import { isRecord } from '#app/server/is-record';

const PYTHON = /%(?:\((\w+)\))?([#0\- +|]*)(\*|\d+)?(?:.(\*|\d+))?[hlL|]*([diouxXeEfFgGcrs%|])/g;
const CURLY = /\{(\w+)?\}/g;

class FormatError extends Error {}

/** The message Relay would compute from a template and its params, or undefined. */
export function formatMessage(template: string, params: unknown): string | undefined {
  let next = 0;
  const positional = () => argument(params, next++);
  try {
    if (template.includes('%')) {
      return template.replace(PYTHON, (_match, key, _flags, width, precision, type: string) => {
        if (type === '%') return '%';
        if (type === '|') throw new FormatError();
        if (width === '*') positional();
        if (precision === '*') positional();
        return formatValue(key === undefined ? positional() : argument(params, key), type);
      });
    }
    if (template.includes('{')) {
      return template.replace(CURLY, (_match, key: string | undefined) => {
        if (key === undefined) return formatValue(positional(), 's');
        return formatValue(argument(params, /^\d+$/.test(key) ? Number(key) : key), 's');
      });
    }
  } catch (error) {
    if (error instanceof FormatError) return undefined;
    throw error;
  }
  return undefined;
}

function argument(params: unknown, position: number | string): unknown {
  const value =
    typeof position === 'number'
      ? Array.isArray(params)
        ? params[position]
        : undefined
      : isRecord(params) && Object.hasOwn(params, position)
        ? params[position]
        : undefined;
  if (value === undefined || value === null) throw new FormatError();
  return value;
}

function formatValue(value: unknown, type: string): string {
  if (type === 'r') return JSON.stringify(value);
  if (type === 'o' || type === 'x' || type === 'X') {
    if (!Number.isInteger(value)) throw new FormatError();
    const text = (value as number).toString(type === 'o' ? 8 : 16);
    return type === 'X' ? text.toUpperCase() : text;
  }
  if (type === 'e' || type === 'E') {
    if (typeof value !== 'number' || Number.isInteger(value)) throw new FormatError();
    const text = value.toExponential().replace('e+', 'e');
    return type === 'E' ? text.toUpperCase() : text;
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

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
