// Start's build provides this virtual module to the `server` router (its own handler imports
// it): every server function id of the app, with how to load it.
declare module 'tsr:server-fn-manifest' {
  const manifest: Record<string, { functionName: string; importer: () => Promise<unknown> }>;
  export default manifest;
}
