#!/usr/bin/env node
// `cumem` (the package's bin): `cumem info [--json]` says what a bug report needs, `cumem
// --version`. The work is in cumem-main.ts (arguments) and cumem-report.ts (the report).
import { runCli } from './cumem-main.js';

process.exitCode = runCli(
  process.argv.slice(2),
  (text) => process.stdout.write(text),
  (text) => process.stderr.write(text),
);
