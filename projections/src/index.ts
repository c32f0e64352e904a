export * from './agent-views';
export * from './queries';
export * from './runner';
