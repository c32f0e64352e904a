export * from './schemas';
export * from './validator';
export * from './json';
export * from './openapi';
