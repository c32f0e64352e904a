export * from './agent-views';
export * from './queries';
export * from './runner';
export * from './generations';
export * from './projector';
export * from './rebuild';
