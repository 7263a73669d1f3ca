/**
 * The SSR handler turns streaming off for bots (isbot), and Node's fetch counts as one:
 * requests that check streaming or hydration send a real browser's User-Agent.
 */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
