/**
 * Stands in, in the importable ShellWorker modules only (scripts/build-sandboxes.mjs), for what a
 * Worker's bundler would otherwise have to resolve but the shell never loads: the commands that cannot
 * run in workerd (python3, sqlite3, js-exec: a node:worker_threads worker), just-bash's fuzzing
 * instrumentation, and the native codecs of tar (node-liblzma, @mongodb-js/zstd). Each is reached only
 * through a lazy `import()`, which this makes fail saying why.
 */
throw new Error("not available in the worker-shell: this part of just-bash cannot run in workerd");
