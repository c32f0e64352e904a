export * from './catalogue';
export * from './service-error';
export * from './table';
export * from './unavailable';
