import type { Page } from '@playwright/test';

/**
 * The ids of the reports the page's recorder keeps in IndexedDB (app/monitoring/recorder/
 * recorder.ts) that no page has sent or taken yet (the settled log in localStorage).
 */
export function storedReportIds(page: Page): Promise<string[]> {
  return page.evaluate(
    () =>
      new Promise<string[]>((resolve, reject) => {
        const opening = indexedDB.open('monitoring-recorder');
        opening.onerror = () => reject(opening.error);
        opening.onsuccess = () => {
          const database = opening.result;
          if (!database.objectStoreNames.contains('reports')) {
            database.close();
            resolve([]);
            return;
          }
          const reading = database.transaction('reports').objectStore('reports').getAllKeys();
          reading.onsuccess = () => {
            database.close();
            const settled: string[] = JSON.parse(
              localStorage.getItem('monitoring-recorder-settled') ?? '[]',
            );
            resolve(reading.result.map(String).filter((id) => !settled.includes(id)));
          };
          reading.onerror = () => reject(reading.error);
        };
      }),
  );
}

/** How many envelopes wait in the SDK's own offline store (IndexedDB `sentry-offline`). */
export function sdkOfflineCount(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const known = await indexedDB.databases();
    if (!known.some((database) => database.name === 'sentry-offline')) return 0;
    return new Promise<number>((resolve, reject) => {
      const opening = indexedDB.open('sentry-offline');
      opening.onerror = () => reject(opening.error);
      opening.onsuccess = () => {
        const database = opening.result;
        const counting = database.transaction('queue').objectStore('queue').count();
        counting.onsuccess = () => {
          database.close();
          resolve(counting.result);
        };
        counting.onerror = () => reject(counting.error);
      };
    });
  });
}
