/**
 * Which release is newer, for "resolve in the next release" (decision 1222), as Sentry orders
 * them. Server-only in use (the ingest thread), apart from ./triage.ts so that the pages' bundle
 * does not carry a semver parser. Pure.
 */
import { compare as compareSemver, valid as validSemver } from 'semver';

/**
 * Whether `release` is newer than `resolvedIn`, the release an issue was resolved in the next
 * one of (decision 1222). As Sentry: by semver when both parse (a `package@` prefix set aside,
 * as Sentry's release names carry one), else a release first seen after the resolution is newer
 * (`firstSeen` undefined: never seen before, so it is). An event without a release is never
 * newer, nor is the same release.
 */
export function releaseIsNewer(
  release: string,
  resolvedIn: string,
  seen: { firstSeen: number | undefined; resolvedAt: number },
): boolean {
  if (release === '' || release === resolvedIn) return false;
  const version = semverOf(release);
  const resolvedVersion = semverOf(resolvedIn);
  if (version && resolvedVersion && version.name === resolvedVersion.name) {
    return compareSemver(version.version, resolvedVersion.version) > 0;
  }
  return seen.firstSeen === undefined || seen.firstSeen > seen.resolvedAt;
}

function semverOf(release: string): { name: string; version: string } | undefined {
  const at = release.lastIndexOf('@');
  const name = at > 0 ? release.slice(0, at) : '';
  const version = validSemver(at > 0 ? release.slice(at + 1) : release);
  return version ? { name, version } : undefined;
}
