#!/usr/bin/env node
// The launcher: loads the TypeScript sources through tsx, then starts Clamp's server.
import { register } from 'tsx/esm/api';

register();
const { launch } = await import('../lib/server/launch.ts');
await launch(process.argv.slice(2));
