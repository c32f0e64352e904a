/**
 * `@tokenops/shared/process`: what every server process shares at its entry point: settings from the
 * environment, logging, metrics, health and readiness, graceful stop, opening the adapters the
 * environment names, and the tracing SDK.
 */
export * from './process/index';
export * from './process/tracing';
