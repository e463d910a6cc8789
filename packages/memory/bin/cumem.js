#!/usr/bin/env node
// The `cumem` command. A committed launcher rather than dist/cli/cumem.js itself, so the bin
// link exists from the first `pnpm install` of a clone, before anything is built (pnpm warns
// "Failed to create bin" for every dependent package otherwise).
import '../dist/cli/cumem.js';
