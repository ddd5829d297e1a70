#!/usr/bin/env node
// The `afterstop` command. A file of its own, outside dist/, so that npm links it when it installs the
// workspace, before a clone has been built (npm links no bin whose file is missing).
import '../dist/cli/main.js';
