// Nitro's build resolves this alias for entries (its node-server entry imports it first).
declare module '#nitro-internal-pollyfills' {}
