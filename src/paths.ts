/**
 * The project's root directory, for files read at run time (the migrations, the default registry). This file
 * sits directly in src/, and the production build bundles everything into dist/server.js, also one level
 * down, so `..` is the root in both.
 */
export const PROJECT_ROOT = new URL('../', import.meta.url);
