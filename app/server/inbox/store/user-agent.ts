/**
 * The browser and OS of an event that does not say, from its request's `User-Agent`, as Relay
 * fills `contexts.browser` and `contexts.os` (it runs uap-core's full regex set; these are the
 * browsers and systems that set nearly all traffic, named as uap-core names them). Only for the
 * issue's tag breakdown: the stored event is left as it came. Pure.
 */

export interface NamedVersion {
  name: string;
  /** The major version, when the agent gives one. */
  version?: string;
}

/** Most specific first: Edge and Opera say "Chrome" too, Chrome says "Safari". */
const BROWSERS: Array<[name: string, pattern: RegExp]> = [
  ['Edge', /\bEdg(?:e|A|iOS)?\/(\d+)/],
  ['Opera', /\bOPR\/(\d+)/],
  ['Samsung Internet', /\bSamsungBrowser\/(\d+)/],
  ['Firefox', /\b(?:Firefox|FxiOS)\/(\d+)/],
  ['Chrome Mobile iOS', /\bCriOS\/(\d+)/],
  ['Chrome Mobile', /\bChrome\/(\d+)[\d.]* Mobile\b/],
  ['Chrome', /\b(?:HeadlessChrome|Chrome|Chromium)\/(\d+)/],
  ['Mobile Safari', /\bVersion\/(\d+)[\d.]* Mobile\/\S+ Safari\//],
  ['Safari', /\bVersion\/(\d+)[\d.]* Safari\//],
];

const SYSTEMS: Array<[name: string, pattern: RegExp]> = [
  ['Windows', /\bWindows NT (\d+)/],
  ['iOS', /\b(?:iPhone|iPad|iPod).*? OS (\d+)/],
  ['Mac OS X', /\bMac OS X (\d+)/],
  ['Android', /\bAndroid (\d+)/],
  ['Chrome OS', /\bCrOS\b/],
  ['Linux', /\bLinux\b/],
];

export function browserOf(userAgent: string): NamedVersion | undefined {
  return firstMatch(BROWSERS, userAgent);
}

export function osOf(userAgent: string): NamedVersion | undefined {
  return firstMatch(SYSTEMS, userAgent);
}

function firstMatch(table: Array<[string, RegExp]>, text: string): NamedVersion | undefined {
  // Agents are short; a hostile one is cut before any pattern sees it.
  const agent = text.slice(0, 512);
  for (const [name, pattern] of table) {
    const match = pattern.exec(agent);
    if (match) return match[1] ? { name, version: match[1] } : { name };
  }
  return undefined;
}
