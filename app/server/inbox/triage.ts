/**
 * Triage as Sentry, Bugsink and GlitchTip do it (issue 34), as pure policy: the actions the
 * inbox offers (resolve, resolve in the next release, ignore forever or until a time, a number of
 * events or a number of users, reopen, delete), when a mute ends, and whether an event regresses
 * its issue. Which release is newer is `releaseIsNewer` in ./store/inbox-database.server.ts, kept
 * apart so that the pages' bundle does not carry a semver parser. The store
 * (./store/inbox-database.server.ts) keeps the state and asks these; the pages word it
 * (app/components/inbox/format.ts `triageNoteOf`). Decisions 1220-1222.
 */
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * What a reader can do to issues, as the forms send it: one value each, so the input is a
 * picklist and a bulk form's one select offers them all (Sentry's ignore menu, with its presets).
 */
export const TRIAGE_ACTIONS = {
  resolve: { kind: 'resolve' },
  'resolve-next-release': { kind: 'resolve-next-release' },
  unresolve: { kind: 'unresolve' },
  ignore: { kind: 'ignore', mute: { kind: 'forever' } },
  'ignore-30m': { kind: 'ignore', mute: { kind: 'for', ms: 30 * MINUTE_MS } },
  'ignore-1h': { kind: 'ignore', mute: { kind: 'for', ms: HOUR_MS } },
  'ignore-24h': { kind: 'ignore', mute: { kind: 'for', ms: 24 * HOUR_MS } },
  'ignore-1w': { kind: 'ignore', mute: { kind: 'for', ms: 7 * 24 * HOUR_MS } },
  'ignore-10-events': { kind: 'ignore', mute: { kind: 'events', count: 10 } },
  'ignore-100-events': { kind: 'ignore', mute: { kind: 'events', count: 100 } },
  'ignore-1000-events': { kind: 'ignore', mute: { kind: 'events', count: 1000 } },
  'ignore-10-users': { kind: 'ignore', mute: { kind: 'users', count: 10 } },
  'ignore-100-users': { kind: 'ignore', mute: { kind: 'users', count: 100 } },
  delete: { kind: 'delete' },
} as const satisfies Record<string, TriageAction>;

export type TriageActionName = keyof typeof TRIAGE_ACTIONS;
export const TRIAGE_ACTION_NAMES = Object.keys(TRIAGE_ACTIONS) as TriageActionName[];

/** How long, or until what, an ignored issue stays ignored; `forever` is the plain ignore. */
export type MuteChoice =
  | { kind: 'forever' }
  | { kind: 'for'; ms: number }
  | { kind: 'events'; count: number }
  | { kind: 'users'; count: number };

export type TriageAction =
  | { kind: 'resolve' }
  | { kind: 'resolve-next-release' }
  | { kind: 'unresolve' }
  | { kind: 'ignore'; mute: MuteChoice }
  | { kind: 'delete' };

/**
 * A mute as stored: until a time (ms since the epoch), or until the event or user count
 * reaches `target`, `count` more than it had when it was muted (for "37 so far").
 */
export type Mute =
  | { kind: 'time'; target: number }
  | { kind: 'events' | 'users'; target: number; count: number };

/** The mute a choice makes, from when and at what counts it is asked for; none for `forever`. */
export function muteOf(
  choice: MuteChoice,
  at: { now: number; events: number; users: number },
): Mute | undefined {
  switch (choice.kind) {
    case 'forever':
      return undefined;
    case 'for':
      return { kind: 'time', target: at.now + choice.ms };
    case 'events':
      return { kind: 'events', target: at.events + choice.count, count: choice.count };
    case 'users':
      return { kind: 'users', target: at.users + choice.count, count: choice.count };
  }
}

/**
 * Whether a mute is over: its time has come, or the issue has as many events or users as it
 * waited for. Users are counted up to the cap (MAX_USERS_PER_ISSUE): past it no new user
 * is counted, so the choices stay well below it.
 */
export function muteEnded(
  mute: Mute,
  now: { now: number; events: number; users: number },
): boolean {
  switch (mute.kind) {
    case 'time':
      return now.now >= mute.target;
    case 'events':
      return now.events >= mute.target;
    case 'users':
      return now.users >= mute.target;
  }
}

/** An issue's triage state, as the store keeps it and the pages show it. */
export type TriageState =
  | { status: 'unresolved' }
  /** `inNextRelease`: resolved after release `after`, at `at` (ms since the epoch). */
  | { status: 'resolved'; inNextRelease?: { after: string; at: number } }
  | { status: 'ignored'; mute?: Mute };

/**
 * The status the pages and search show now: an ignored issue whose time mute has passed is
 * unresolved again, though no event has come to end it in the store (decision 1221).
 */
export function statusNow(state: TriageState, now: number): TriageState['status'] {
  if (state.status === 'ignored' && state.mute?.kind === 'time' && now >= state.mute.target) {
    return 'unresolved';
  }
  return state.status;
}

/**
 * Whether an event regresses its issue (unresolved again, `regressed`, an alert): any event of a
 * plainly resolved issue; an event of a newer release for one resolved in the next release; the
 * event that ends a mute, or the first after a time mute passed. `events` and `users` count this
 * event in.
 */
export function regresses(
  state: TriageState,
  event: { now: number; events: number; users: number; releaseIsNewer: () => boolean },
): boolean {
  switch (state.status) {
    case 'unresolved':
      return false;
    case 'resolved':
      return state.inNextRelease === undefined || event.releaseIsNewer();
    case 'ignored':
      return state.mute !== undefined && muteEnded(state.mute, event);
  }
}
