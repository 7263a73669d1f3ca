/**
 * A nitro plugin: runs once when the server process starts, before it takes requests.
 * It parses the environment (a bad one stops the server here, with the message naming
 * each bad variable) and says where errors will go.
 */
import { serverConfig } from './env.server';
import { describeMonitoring } from './monitoring-mode.server';

export default function startup(): void {
  let config: ReturnType<typeof serverConfig>;
  try {
    config = serverConfig();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
  console.log(`[monitoring] ${describeMonitoring(config)}`);
}
