/**
 * Keeps src/'s folders pointing one way (README "Layout"): no cycle between folders, and src/domain imports no
 * outer folder. Type-only imports are left out: they vanish at compile time, so they cannot make a load-order
 * cycle, and the domain may name an outer type only through a port it declares itself.
 */
const outer = '^src/(db|http|rest|schema|webhooks|relayer|chains)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment: 'A cycle between src/ folders: one of the two must depend on the other only through a port.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-imports-no-outer-folder',
      comment: 'src/domain declares the ports it needs; db, http, rest, schema and webhooks implement them.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: outer, dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
