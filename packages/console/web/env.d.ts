// The stylesheet is bundled by esbuild (scripts/build.mjs); importing it gives nothing to the code.
declare module '*.css';
