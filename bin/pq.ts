#!/usr/bin/env node
// The operator CLI. Wiring only: the commands live in cli/. Contributors run it from its sources
// (npm run pq -- --help); packages/pq compiles it into the pq that operators install, whose entry
// starts with the line above.
import { runCli } from '../cli/run';

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => {
    process.exitCode = code;
  },
);
