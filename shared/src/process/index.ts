export * from './logger';
export * from './metrics';
export * from './ops';
export * from './lifecycle';
export * from './env';
export * from './backends';
export * from './settings';
export * from './markets';
