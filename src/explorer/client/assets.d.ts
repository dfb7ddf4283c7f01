/** Style sheets imported for their effect: esbuild bundles them into the explorer's one .css file. */
declare module '*.css';
