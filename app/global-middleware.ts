// Start imports this file into every entry (see @tanstack/react-start-plugin): middleware
// registered here wraps every server function.
import { registerGlobalMiddleware } from '@tanstack/react-start';
import { serverFunctionFailures } from './server/failures/server-function-failures';

registerGlobalMiddleware({ middleware: [serverFunctionFailures] });
