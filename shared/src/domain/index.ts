export * from './time';
export * from './limits';
export * from './secrets';
export * from './events';
export * from './group';
export * from './agent';
export * from './budget';
export * from './intent';
