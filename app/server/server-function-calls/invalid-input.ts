/**
 * Whether a server function failed because its validator refused the caller's input, and the
 * short description a caller gets back. Pure: the decision is tested without a server.
 *
 * A validator fails in one of two shapes in Start 1.120:
 * - `v.parse(Schema, input)` in a validator function throws valibot's ValiError;
 * - a schema passed to `.validator()` is run through Standard Schema by Start, which throws a
 *   plain Error whose message is the issues as JSON (the input values inside).
 * A handler of ours that lets a ValiError escape for its own data would be taken for the
 * caller's fault too: handlers check their own data with `v.safeParse` and throw their own error.
 */
import * as v from 'valibot';

export interface InputIssue {
  /** Dot path of the offending field; '' for the input as a whole. */
  path: string;
  message: string;
}

/** V8's words when JSON.stringify meets a BigInt. */
const BIGINT_ISSUES = /^Do not know how to serialize a BigInt$/;

/** Caps that keep the answer and the warning line short whatever the input was. */
const MAX_ISSUES = 3;
const MAX_PATH_CHARS = 100;
const MAX_MESSAGE_CHARS = 160;

/** The issues of a validator failure, or undefined for any other error. */
export function invalidInputIssues(error: unknown): InputIssue[] | undefined {
  // Start's serializer reads `{"$bigint":"1"}` as a BigInt; the validator refuses it, and Start
  // then fails to write the issues (they hold the input) as JSON: a TypeError, not the issues.
  if (error instanceof TypeError && BIGINT_ISSUES.test(error.message)) {
    return [{ path: '', message: 'a BigInt, which no input here takes' }];
  }
  if (error instanceof v.ValiError) {
    return error.issues.map((issue) => ({
      path: v.getDotPath(issue) ?? pathOf(issue.path),
      message: issue.message,
    }));
  }
  return standardSchemaIssues(error);
}

/** One line for the caller and the log: paths and messages, never the values themselves. */
export function describeInvalidInput(issues: readonly InputIssue[]): string {
  const shown = issues.slice(0, MAX_ISSUES).map((issue) => {
    const message = clip(oneLine(issue.message), MAX_MESSAGE_CHARS);
    return issue.path === '' ? message : `${clip(oneLine(issue.path), MAX_PATH_CHARS)}: ${message}`;
  });
  const more = issues.length > MAX_ISSUES ? ` (and ${issues.length - MAX_ISSUES} more)` : '';
  return `invalid input: ${shown.join('; ')}${more}`;
}

// Start's execValidator: `throw new Error(JSON.stringify(result.issues, undefined, 2))`.
function standardSchemaIssues(error: unknown): InputIssue[] | undefined {
  if (!(error instanceof Error) || error.constructor !== Error) return undefined;
  if (!error.message.startsWith('[')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(error.message);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
  const issues: InputIssue[] = [];
  for (const issue of parsed) {
    if (typeof issue !== 'object' || issue === null || typeof issue.message !== 'string') {
      return undefined;
    }
    issues.push({ path: pathOf(issue.path), message: issue.message });
  }
  return issues;
}

/** A Standard Schema path (keys, or objects carrying `key`) as a dot path. */
function pathOf(path: unknown): string {
  if (!Array.isArray(path)) return '';
  return path
    .map((item) => (typeof item === 'object' && item !== null ? item.key : item))
    .map((key) => (typeof key === 'string' || typeof key === 'number' ? String(key) : '?'))
    .join('.');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
