/** JSON logs (winston). Never a body, a key, a code or a token: only what identifies a request. */
import winston from 'winston';
import { SETTINGS } from '../settings/catalogue';

const LEVELS = winston.config.npm.levels;

export function createLogger(
  level: string = SETTINGS.LOG_LEVEL.default,
  service = 'tokenops',
): winston.Logger {
  const threshold = level === 'silent' ? 'error' : level;
  // winston formats every entry before its transport drops those below the level: drop them first,
  // so a debug line on the request path costs nothing at LOG_LEVEL=info.
  const enabled = winston.format((info) =>
    (LEVELS[info.level] ?? 0) <= (LEVELS[threshold] ?? 0) ? info : false,
  );
  return winston.createLogger({
    level: threshold,
    silent: level === 'silent',
    format: winston.format.combine(enabled(), winston.format.timestamp(), winston.format.json()),
    defaultMeta: { service },
    transports: [new winston.transports.Console()],
  });
}

export type Logger = winston.Logger;
