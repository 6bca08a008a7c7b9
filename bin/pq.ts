#!/usr/bin/env -S npx tsx
// The operator CLI (npm run pq -- --help). Wiring only: the commands live in cli/.
import { runCli } from '../cli/run';

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => {
    process.exitCode = code;
  },
);
