/** esbuild bundles the stylesheet import; for tsc it is a side-effect module. */
declare module '*.css';
