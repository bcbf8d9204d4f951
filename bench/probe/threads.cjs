// Preloaded (--require) before anything else runs: the threads this process has now are the main
// thread and V8's (platform workers, GC helpers); libuv's pool only starts with the first fs call.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('node:fs');
globalThis.__probeStartThreads = fs.readdirSync('/proc/self/task');
