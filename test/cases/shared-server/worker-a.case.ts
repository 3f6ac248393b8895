// Worker a of the shared-server cases (see worker.ts).
import { worker } from './worker.ts';

worker('a', 'b');
