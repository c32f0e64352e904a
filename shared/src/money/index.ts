export * from './amount';
export * from './fee';
