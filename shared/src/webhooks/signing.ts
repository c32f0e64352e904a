/**
 * Webhook signatures live in @tokenops/webhook-signing (packages/webhook-signing), a module without
 * the service's dependencies, so that the TypeScript client re-exports the very same verifier.
 */
export * from '@tokenops/webhook-signing';
