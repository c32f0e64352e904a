export * from './schemas';
export * from './operator-schemas';
export * from './text';
export * from './validator';
export * from './json';
export * from './openapi';
export * from './variant-schemas';
export * from './variant-openapi';
