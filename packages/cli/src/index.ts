export { program, run, runCaptured, type Outcome } from './program';
export type { Cli, Global, Io } from './session';
