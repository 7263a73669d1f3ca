// Start imports this file into every entry (see @tanstack/react-start-plugin): middleware
// registered here wraps every server function, the first one outermost.
import { registerGlobalMiddleware } from '@tanstack/react-start';
import { serverFunctionFailures } from './server/failures/server-function-failures';
import { stateChangeGuard } from './server/security/state-change-guard';

registerGlobalMiddleware({ middleware: [stateChangeGuard, serverFunctionFailures] });
