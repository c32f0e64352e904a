/** JSON logs (winston). Never a body, a key, a code or a token: only what identifies a request. */
import winston from 'winston';

export function createLogger(level = process.env.LOG_LEVEL ?? 'info', service = 'tokenops'): winston.Logger {
  return winston.createLogger({
    level: level === 'silent' ? 'error' : level,
    silent: level === 'silent',
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    defaultMeta: { service },
    transports: [new winston.transports.Console()],
  });
}

export type Logger = winston.Logger;
