// Modules the build provides without types, beside the build code that provides them. The first
// is ours (build/inline-scripts.ts) and outlives the framework; the other two are the frozen
// framework's (app/start-1.120/PATCHES.md) and go with it.

// A module bundled into one classic script, as text.
declare module '*?inline-script' {
  const code: string;
  export default code;
}

// Nitro's build resolves this alias for entries (its node-server entry imports it first).
declare module '#nitro-internal-pollyfills' {}

// Start's build provides this virtual module to the `server` router (its own handler imports
// it): every server function id of the app, with how to load it.
declare module 'tsr:server-fn-manifest' {
  const manifest: Record<string, { functionName: string; importer: () => Promise<unknown> }>;
  export default manifest;
}
