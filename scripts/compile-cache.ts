// Preloaded by `npm start` (node --import): V8's compiled code and Node's type-stripped sources are kept
// on disk between runs (the OS temp dir, or NODE_COMPILE_CACHE), so a start from the sources after the
// first costs about half: ~450 against ~700-950 ms to healthy here. The CLI's bin does the same for dist/.
import module from 'node:module';

module.enableCompileCache?.();
