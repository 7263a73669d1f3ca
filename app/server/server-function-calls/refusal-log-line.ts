/**
 * The one warning line for a server function call refused as the caller's fault (413, 411,
 * 405, 400): a caller's mistake is worth a line, never a failure record or a Sentry event.
 * Pure; what the caller sent is clipped, so a hostile path cannot make the line long.
 */
const MAX_ID_CHARS = 200;
const MAX_REASON_CHARS = 600;

export function refusalLogLine(
  status: number,
  reason: string,
  method: string | undefined,
  functionId: string | undefined,
): string {
  const id = clip(functionId ?? '(no id)', MAX_ID_CHARS);
  const why = clip(reason.replace(/\s+/g, ' '), MAX_REASON_CHARS);
  return `[server-fn] ${status} ${why}: ${clip(method ?? '?', 20)} ${id}`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
