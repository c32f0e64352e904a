/**
 * `@tokenops/shared/adapters`: what sits behind the ports, for the processes' wiring (and the tests
 * that start them): the event stores, SQL, read models, queues, the chain's clients, venues,
 * aggregators, webhook delivery. Routes and the application talk to the ports (`@tokenops/shared`).
 */
export * from './event-store/fanout';
export * from './event-store/postgres';
export * from './event-store/eventstoredb';
export * from './sql/sql';
export * from './read-models/memory';
export * from './read-models/redis';
export * from './read-models/lease';
export * from './queue/memory';
export * from './queue/bullmq';
export * from './chain/litesvm';
export * from './chain/rpc';
export * from './chain/rpc-node';
export * from './chain/json-rpc';
export * from './chain/pubsub';
export * from './chain/confirmations';
export * from './chain/payments';
export * from './chain/history';
export * from './chain/local-fixtures';
export * from './venues/klend';
export * from './venues/local';
export * from './aggregator/local';
export * from './aggregator/jupiter';
export * from './net/address-guard';
export { systemResolver } from './net/system-resolver';
export * from './deliveries/sql';
export { WebhookSender, AddressRefused } from './webhooks/sender';
export { guardedAgent, type GuardOptions } from './net/guarded-agent';
export * from './tracing/traced-store';
export * from './x402/resource';
