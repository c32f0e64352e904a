export * from './signing';
