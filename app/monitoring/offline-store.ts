/**
 * Whether the SDK's offline store holds envelopes that an earlier visit could not send. The SDK
 * sends them when it starts (`flushAtStartup`, browser-options.ts), but it loads only when this
 * page needs it (decision 0950), so the page looks first, without the SDK. The names are the
 * SDK's defaults (@sentry/browser 11.12, transports/offline.js), which browser-options.ts keeps.
 */
export const OFFLINE_DATABASE = 'sentry-offline';
export const OFFLINE_STORE = 'queue';

export async function offlineStoreHasEnvelopes(factory?: IDBFactory): Promise<boolean> {
  try {
    // Read inside the `try`: where storage is blocked, reading it can throw.
    const databases = factory ?? globalThis.indexedDB;
    if (!databases) return false;
    // Opening a database that does not exist would create it empty, without the store, and the
    // SDK, which creates the store only when it creates the database, could then store nothing.
    // Where the browser cannot list its databases, the SDK looks instead.
    if (typeof databases.databases !== 'function') return true;
    const existing = await databases.databases();
    if (!existing.some((database) => database.name === OFFLINE_DATABASE)) return false;
    const opening = databases.open(OFFLINE_DATABASE);
    // Deleted since it was listed (site data cleared, another tab): opening would create it
    // empty. Aborting the upgrade removes it again, and the open fails.
    opening.onupgradeneeded = () => opening.transaction?.abort();
    const database = await requested(opening);
    try {
      if (!database.objectStoreNames.contains(OFFLINE_STORE)) return false;
      const store = database.transaction(OFFLINE_STORE, 'readonly').objectStore(OFFLINE_STORE);
      return (await requested(store.count())) > 0;
    } finally {
      database.close();
    }
  } catch {
    // Storage refused (private mode, a quota, a policy): the SDK could not use it either.
    return false;
  }
}

function requested<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}
