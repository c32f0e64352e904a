/**
 * `@tokenops/shared`: the core. The domain's rules, money, errors, the event catalogue, the contract's
 * schemas and documents, the ports, and the application over them. Adapters are
 * `@tokenops/shared/adapters`; a process's wiring `@tokenops/shared/process`.
 */
export * from './errors';
export * from './money';
export * from './contract';
export * from './domain';
export * from './events/catalogue';
export * from './event-store/port';
export * from './event-store/hash-chain';
export * from './event-store/pages';
export * from './event-store/appends';
export * from './read-models/port';
export * from './queue/port';
export * from './chain/port';
export * from './chain/keys';
export * from './chain/transactions';
export * from './chain/compute-budget';
export * from './venues/port';
export * from './aggregator/port';
export * from './deliveries/port';
export * from './webhooks/signing';
export * from './tracing/spans';
export * from './application/budgets';
export * from './application/guard';
export * from './application/settle';
export * from './application/emergency';
export * from './application/freeze';
export * from './application/proposals';
export * from './application/members';
export * from './application/context';
export * from './application/credentials';
export * from './application/repository';
export * from './application/wallets';
export * from './application/onboarding';
export * from './application/groups';
export * from './application/allow-list';
export * from './application/agents';
export * from './application/airdrop';
export * from './application/activity';
export * from './application/audit';
export * from './application/verify';
export * from './application/outcomes';
export * from './application/payments';
export * from './application/reconcile';
export * from './application/caller';
export * from './application/spends';
export * from './application/expiry';
export * from './application/approvals';
export * from './application/preview';
export * from './application/webhooks/subscriptions';
export * from './application/webhooks/relay';
export * from './application/webhooks/deliver';
export { SOLANA_NETWORKS } from './x402/requirements';
