// A tiny test runner: every case prints one line, as TAP does.
import { slugify } from '../src/slug.js';

const cases = [
  ['Hello, World!', 'hello-world'],
  ['  Ten tips for faster builds  ', 'ten-tips-for-faster-builds'],
  ['Why I write tests first', 'why-i-write-tests-first'],
];
// many generated titles: words joined by punctuation and spaces
const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'node', 'tests', 'build'];
for (let i = 0; i < 1500; i++) {
  const picked = [words[i % 8], words[(i * 3 + 1) % 8], words[(i * 5 + 2) % 8], String(i)];
  cases.push([`${picked.join(i % 2 ? ', ' : ' ')}${i % 3 ? '!' : ''}`, picked.join('-')]);
}

let failed = 0;
cases.forEach(([title, want], n) => {
  const got = slugify(title);
  if (got === want) console.log(`ok ${n + 1} - slugify(${JSON.stringify(title)}) is ${JSON.stringify(want)}`);
  else {
    failed++;
    console.log(`not ok ${n + 1} - slugify(${JSON.stringify(title)}) is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  }
});
console.log(`# ${cases.length} tests, ${cases.length - failed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
