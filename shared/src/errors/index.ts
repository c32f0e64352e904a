export * from './catalogue';
export * from './service-error';
