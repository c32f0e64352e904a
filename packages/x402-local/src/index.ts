/** @tokenops/x402-local: an x402 facilitator and paid resource on loopback, and the certificates they use. */
export * from './certificates';
export * from './local';
