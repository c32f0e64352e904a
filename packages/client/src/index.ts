/** @tokenops/client: typed clients for agents and operators of the token-operations service (README.md). */
export * from './client';
export * from './operator';
export * from './errors';
export type { RetryOptions } from './retry';
export type { components, operations, paths } from './generated/agent-api';
export type {
  components as OperatorComponents,
  operations as OperatorOperations,
  paths as OperatorPaths,
} from './generated/operator-api';
// Webhook signatures from their one place (packages/webhook-signing), the same code the service signs with.
export {
  verifyWebhook,
  webhookTestHeaders,
  WebhookVerificationError,
  type IncomingHeaders,
  type WebhookHeaders,
} from '@tokenops/webhook-signing';
