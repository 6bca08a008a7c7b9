#!/usr/bin/env node
// The operator CLI. Wiring only: the commands live in cli/ (and pq console in console/). Contributors run it from its sources
// (npm run pq -- --help); packages/pq compiles it into the pq that operators install, whose entry
// starts with the line above.
import { exitQuietlyOnBrokenPipe } from '../cli/broken-pipe';
import { runCli } from '../cli/run';
import { PQ_COMMANDS } from './pq-commands';

exitQuietlyOnBrokenPipe();

runCli(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, env: process.env },
  PQ_COMMANDS,
).then((code) => {
  process.exitCode = code;
});
