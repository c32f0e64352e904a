export * from './execute';
export * from './relay';
export * from './locks';
export * from './payments';
export * from './wiring';
