/** A module bundled into one classic script, as text (build/inline-scripts.ts). */
declare module '*?inline-script' {
  const code: string;
  export default code;
}
