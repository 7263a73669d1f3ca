/**
 * A nitro plugin: runs once when the server process starts, before it takes requests.
 * It parses the environment (a bad one stops the server here, with the message naming
 * each bad variable). The built server's entry says where errors go once it listens
 * (app/server/node/node-server.server.ts); `vinxi dev`, which has no such entry, says it here.
 */
import { serverConfig } from './env.server';
import { localInbox } from './inbox/store/local-inbox.server';
import {
  describeInboxAccess,
  describeMonitoring,
  describeSpotlight,
} from './monitoring-mode.server';

interface NitroAppLike {
  /**
   * Only vinxi's dev server has it (nitro's runtime app does not). Both have `h3App`: this
   * plugin once asked for that, and `npm run dev` never said where errors go.
   */
  listen?: unknown;
}

export default function startup(nitroApp: NitroAppLike): void {
  let config: ReturnType<typeof serverConfig>;
  try {
    config = serverConfig();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
  if (!nitroApp.listen) return;
  console.log(`[monitoring] ${describeMonitoring(config)}`);
  const access = describeInboxAccess(config);
  if (access) console.log(`[monitoring] ${access}`);
  const spotlight = describeSpotlight(config);
  if (spotlight) console.log(`[monitoring] ${spotlight}`);
  const inboxProblem =
    config.monitoring.kind === 'local-inbox' ? localInbox().problem() : undefined;
  if (inboxProblem) console.error(`[inbox] ${inboxProblem}`);
}
