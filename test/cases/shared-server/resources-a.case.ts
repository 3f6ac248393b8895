// Worker a of the shared-server resource cases (see resources.ts).
import { resources } from './resources.ts';

resources('a', 'b');
