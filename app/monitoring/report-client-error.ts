/**
 * The one hook for errors caught by the app's error boundary in the browser. The browser
 * monitoring setup wires Sentry.captureException in here; until then the console has it.
 * Never throws: it runs inside an error component.
 */
export function reportClientError(error: unknown): void {
  try {
    console.error(error);
  } catch {
    // Nothing left to do: reporting must not break the fallback.
  }
}
