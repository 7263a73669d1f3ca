/**
 * Where the recorder keeps reports until something has sent them: IndexedDB, or localStorage
 * where IndexedDB cannot be opened (some private modes), or only the page's memory where neither
 * can. A report kept here outlives a reload, a lost connection and a closed tab: the next page
 * view of the site sends it. Bounded like the SDK's transport queue (64) and in bytes.
 *
 * "Sent once" across tabs and page views rests on the settled log: the ids of reports that left
 * (by beacon) or that an SDK took, written synchronously to localStorage, so that it holds even
 * when the page is closing and an IndexedDB delete would be cut short. A report whose id is in
 * the log is never sent again, wherever it is still stored.
 * Part of the inline recorder (recorder.ts): the recorder opens it as it starts.
 */
import type { Report } from './recorder';

/**
 * As many reports as the SDK's transport queue and offline store hold (`browserOptions`): 64,
 * above the browser SDK's 40, so that a burst of errors is not cut short.
 */
export const REPORT_QUEUE_SIZE = 64;
/** A bound on what a page can leave in the browser: 64 large stacks, not megabytes. */
export const MAX_STORED_BYTES = 256_000;
/** How many settled ids are remembered: a few times what the store can hold. */
const MAX_SETTLED = 256;

const DATABASE = 'monitoring-recorder';
const STORE = 'reports';
const LOCAL_REPORTS = 'monitoring-recorder-reports';
const LOCAL_SETTLED = 'monitoring-recorder-settled';

/** Whether `report` may join what is stored: pure, for the bounds' unit tests. */
export function fitsInStore(stored: readonly Report[], report: Report): boolean {
  if (stored.some((kept) => kept.id === report.id)) return true;
  if (stored.length >= REPORT_QUEUE_SIZE) return false;
  let bytes = JSON.stringify(report).length;
  for (const kept of stored) bytes += JSON.stringify(kept).length;
  return bytes <= MAX_STORED_BYTES;
}

interface Backend {
  all(): Promise<Report[]>;
  put(report: Report): Promise<void>;
  remove(ids: readonly string[]): Promise<void>;
}

export interface ReportStore {
  /** Keeps the report, if it fits. */
  add(report: Report): Promise<void>;
  /** What is stored and not yet settled: this page's reports and those earlier pages left. */
  unsettled(): Promise<Report[]>;
  /** Marks reports as gone (sent, or taken by the SDK) and removes them. */
  settle(ids: readonly string[]): void;
  /** Whether a report has gone already, here or in another tab. Synchronous. */
  isSettled(id: string): boolean;
}

type StorageWindow = { indexedDB?: IDBFactory; localStorage?: Storage };

export function openReportStore(win: StorageWindow): ReportStore {
  const local = localStorageOf(win);
  const backend: Promise<Backend> = indexedDbBackend(win.indexedDB).catch(() =>
    local ? localBackend(local) : memoryBackend(),
  );
  const settledIds = (): string[] => {
    try {
      return JSON.parse(local?.getItem(LOCAL_SETTLED) ?? '[]');
    } catch {
      return [];
    }
  };
  return {
    add: (report) => backend.then((store) => store.put(report)).catch(() => {}),
    unsettled: () =>
      backend
        .then((store) => store.all())
        .then((reports) => {
          const settled = settledIds();
          return reports.filter((report) => !settled.includes(report.id));
        })
        .catch(() => []),
    settle(ids) {
      if (ids.length === 0) return;
      try {
        local?.setItem(
          LOCAL_SETTLED,
          JSON.stringify([...settledIds(), ...ids].slice(-MAX_SETTLED)),
        );
      } catch {
        // Storage full or refused: the delete below still runs, if the page lives long enough.
      }
      void backend.then((store) => store.remove(ids)).catch(() => {});
    },
    isSettled: (id) => settledIds().includes(id),
  };
}

function localStorageOf(win: StorageWindow): Storage | undefined {
  try {
    // Reading it can throw where storage is blocked.
    const storage = win.localStorage;
    storage?.getItem(LOCAL_SETTLED);
    return storage;
  } catch {
    return undefined;
  }
}

function indexedDbBackend(factory: IDBFactory | undefined): Promise<Backend> {
  return new Promise((resolve, reject) => {
    if (!factory) throw new Error('no IndexedDB');
    const opening = factory.open(DATABASE);
    opening.onupgradeneeded = () => opening.result.createObjectStore(STORE, { keyPath: 'id' });
    opening.onerror = () => reject(opening.error);
    opening.onsuccess = () => {
      const database = opening.result;
      const transact = <T>(work: (store: IDBObjectStore, done: (value: T) => void) => void) =>
        new Promise<T>((done, fail) => {
          const transaction = database.transaction(STORE, 'readwrite');
          let value: T;
          work(transaction.objectStore(STORE), (result) => {
            value = result;
          });
          transaction.oncomplete = () => done(value);
          transaction.onerror = transaction.onabort = () => fail(transaction.error);
        });
      resolve({
        all: () =>
          transact<Report[]>((store, done) => {
            const reading = store.getAll();
            reading.onsuccess = () => done(reading.result);
          }),
        put: (report) =>
          transact<void>((store) => {
            // Read and written in one transaction: two tabs cannot both take the last place.
            const reading = store.getAll();
            reading.onsuccess = () => {
              if (fitsInStore(reading.result, report)) store.put(report);
            };
          }),
        remove: (ids) =>
          transact<void>((store) => {
            for (const id of ids) store.delete(id);
          }),
      });
    };
  });
}

function localBackend(storage: Storage): Backend {
  const read = (): Report[] => {
    try {
      return JSON.parse(storage.getItem(LOCAL_REPORTS) ?? '[]');
    } catch {
      return [];
    }
  };
  const write = (reports: Report[]) => storage.setItem(LOCAL_REPORTS, JSON.stringify(reports));
  return {
    all: async () => read(),
    put: async (report) => {
      const stored = read();
      if (fitsInStore(stored, report))
        write([...stored.filter((kept) => kept.id !== report.id), report]);
    },
    remove: async (ids) => write(read().filter((report) => !ids.includes(report.id))),
  };
}

/** Neither storage: the page's own memory (recorder.ts) is all there is. */
function memoryBackend(): Backend {
  return { all: async () => [], put: async () => {}, remove: async () => {} };
}
