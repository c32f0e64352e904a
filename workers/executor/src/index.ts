export * from './execute';
export * from './relay';
