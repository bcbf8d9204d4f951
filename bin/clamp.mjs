#!/usr/bin/env node
// The launcher: loads Clamp (the built bundle when fresh, else the TypeScript sources), then starts its server.
// `clamp run --help` reads only the flags module.
import { loadEntry } from './pick-entry.mjs';

const argv = process.argv.slice(2);

/** True when argv is `run … --help`: the usage is printed without loading the agent. */
async function printedRunHelp() {
  if (argv[0] !== 'run' || !argv.some((a) => a === '--help' || a === '-h')) return false;
  const { parseRunArgs, RUN_USAGE } = await loadEntry('run-args', 'lib/server/headless/args.ts');
  try {
    if (parseRunArgs(argv.slice(1)) !== 'help') return false;
  } catch {
    return false; // a bad flag: the run says what is wrong
  }
  process.stdout.write(RUN_USAGE + '\n');
  return true;
}

if (!(await printedRunHelp())) {
  const { launch } = await loadEntry('launch', 'lib/server/launch.ts');
  await launch(argv);
}
