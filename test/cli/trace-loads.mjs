// Preloaded with --import by test/cli/lazy-loads.test.ts: appends every package file the process loads to
// $CLAMP_TEST_LOADS, one "<epoch ms> <path or URL>" line each, written when its load starts (ESM through a
// resolve hook on Node's hooks thread, CommonJS through Module._load).
import fs from 'node:fs';
import { Module, register } from 'node:module';

const out = process.env.CLAMP_TEST_LOADS;
if (out) {
  const hook = `import fs from 'node:fs';
export async function resolve(spec, ctx, next) {
  const r = await next(spec, ctx);
  if (r.url.includes('/node_modules/')) fs.appendFileSync(${JSON.stringify(out)}, Date.now() + ' ' + r.url + '\\n');
  return r;
}`;
  register('data:text/javascript,' + encodeURIComponent(hook));
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    try {
      const file = Module._resolveFilename(request, parent, isMain);
      if (file.includes('/node_modules/')) fs.appendFileSync(out, `${Date.now()} ${file}\n`);
    } catch {
      // a built-in or a failing require: Node reports the latter itself
    }
    return load.apply(this, arguments);
  };
}
