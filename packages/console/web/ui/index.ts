/** The console's one set of components: every page is made of these (docs/console.md "How it is built"). */
export * from './load';
export * from './bits';
export * from './form';
export * from './table';
export * from './dialog';
