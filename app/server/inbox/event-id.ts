/**
 * Event ids as the inbox stores them: 32 lower-case hex characters, as Relay normalises them.
 * A link or a pasted id may be upper-case or a dashed UUID; it names the same event. Pure.
 */
const EVENT_ID = /^[0-9a-f]{32}$/;

/** The stored form of an id, or undefined when it cannot be an event id. */
export function normalEventId(id: string): string | undefined {
  if (id.length > 36) return undefined;
  const plain = id.replaceAll('-', '').toLowerCase();
  return EVENT_ID.test(plain) ? plain : undefined;
}
