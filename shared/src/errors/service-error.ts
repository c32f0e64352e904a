import { ERROR_CATALOGUE, type ErrorCode } from './catalogue';

/** One entry of `details` on a `validation_error`: a JSON Pointer to the field and the reason. */
export interface ValidationDetail {
  path: string;
  issue: string;
}

/** The contract's error envelope. */
export interface ErrorEnvelope {
  error: ErrorCode;
  message: string;
  details?: ValidationDetail[];
}

/**
 * An expected failure with a stable code. Thrown by the domain and the adapters; the HTTP layer turns
 * it into the error envelope with the catalogue's status. Anything else that is thrown is a bug and
 * becomes `internal_error` without its text reaching the caller.
 */
export class ServiceError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string = ERROR_CATALOGUE[code].message,
    readonly details?: ValidationDetail[],
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ServiceError';
    this.status = ERROR_CATALOGUE[code].status;
  }

  toBody(): ErrorEnvelope {
    return this.details && this.code === 'validation_error'
      ? { error: this.code, message: this.message, details: this.details }
      : { error: this.code, message: this.message };
  }
}

export const validationError = (details: ValidationDetail[], message?: string): ServiceError =>
  new ServiceError('validation_error', message ?? ERROR_CATALOGUE.validation_error.message, details);
