/**
 * The cluster's primary (./primary.server.ts) as the build writes it beside the server entry
 * (build/server-side-files.ts), which loads it before any server chunk. Imported by the entry
 * alone: a module the server's chunks share would be bundled into them, and the entry would load
 * them (and nitro's app) with it.
 */
export const PRIMARY_FILE = 'cluster-primary.mjs';
