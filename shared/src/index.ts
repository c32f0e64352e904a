export * from './errors';
export * from './money';
export * from './contract';
export * from './domain';
