// Modules the frozen framework's build provides without types (app/start-1.120/PATCHES.md).

// Nitro's build resolves this alias for entries (its node-server entry imports it first).
declare module '#nitro-internal-pollyfills' {}

// Start's build provides this virtual module to the `server` router (its own handler imports
// it): every server function id of the app, with how to load it.
declare module 'tsr:server-fn-manifest' {
  const manifest: Record<string, { functionName: string; importer: () => Promise<unknown> }>;
  export default manifest;
}
