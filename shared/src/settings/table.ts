/**
 * The settings catalogue as the Markdown tables README.md (the embedded default's settings) and
 * docs/operations.md (every process's) carry between markers; `npm run docs:tables` rewrites them.
 */
import { markdownTable, withGeneratedTable } from '../docs/generated-table';
import {
  PROCESSES,
  SETTING_NAMES,
  settingSpec,
  type PerProcess,
  type ProcessName,
  type SettingSpec,
} from './catalogue';

const LABELS: Record<ProcessName, string> = {
  embedded: 'embedded',
  api: 'API',
  projector: 'projector',
  executor: 'executor',
  delivery: 'delivery',
  chain: 'chain node',
  replay: 'replay',
};

const code = (v: string | number | boolean) => `\`${v}\``;

/** One value, or (where processes differ) the value of `role`, else each value with its processes. */
function perProcess<T>(value: PerProcess<T>, role: ProcessName | undefined, show: (v: T) => string): string {
  if (typeof value !== 'object' || value === null) return show(value as T);
  const own = value as { [P in ProcessName]?: T };
  if (role) return show(own[role]!);
  const groups = new Map<string, string[]>();
  for (const p of PROCESSES)
    if (own[p] !== undefined) groups.set(show(own[p]), [...(groups.get(show(own[p])) ?? []), LABELS[p]]);
  return [...groups].map(([v, processes]) => `${v} (${processes.join(', ')})`).join('; ');
}

function defaultCell(spec: SettingSpec, role: ProcessName | undefined): string {
  if (spec.shown !== undefined) return perProcess(spec.shown, role, (v) => v);
  if (spec.type === 'key' || (spec.type === 'url' && spec.default === undefined)) return 'required';
  if (spec.type === 'int' || spec.type === 'text') {
    const value: PerProcess<string | number> | undefined = spec.default;
    return value === undefined ? 'unset' : perProcess(value, role, code);
  }
  return code(spec.default!);
}

function valuesCell(spec: SettingSpec): string {
  switch (spec.type) {
    case 'int':
      return `${spec.min} to ${spec.max}`;
    case 'choice':
      return spec.values.map(code).join(', ');
    case 'flag':
      return '`true`, `false`';
    case 'key':
      return '32 bytes, base64';
    case 'url':
      return spec.format;
    case 'text':
      return spec.format ?? '';
  }
}

const secretCell = (spec: SettingSpec) => (spec.secret ? 'yes' : '');

/** README.md's table: what the embedded default reads. */
export function embeddedSettingsMarkdown(): string {
  return markdownTable(
    ['variable', 'default', 'values', 'secret', 'meaning'],
    SETTING_NAMES.map((name) => [name, settingSpec(name)] as const)
      .filter(([, spec]) => spec.processes.includes('embedded'))
      .map(([name, spec]) => [
        code(name),
        defaultCell(spec, 'embedded'),
        valuesCell(spec),
        secretCell(spec),
        spec.meaning,
      ]),
  );
}

/** docs/operations.md's table: every setting a process of the server topology reads. */
export function serverSettingsMarkdown(): string {
  return markdownTable(
    ['variable', 'read by', 'default', 'values', 'secret', 'meaning'],
    SETTING_NAMES.map((name) => [name, settingSpec(name)] as const)
      .filter(([, spec]) => spec.processes.some((p) => p !== 'embedded'))
      .map(([name, spec]) => [
        code(name),
        spec.processes.map((p) => LABELS[p]).join(', '),
        defaultCell(spec, undefined),
        valuesCell(spec),
        secretCell(spec),
        spec.meaning,
      ]),
  );
}

/** Replaces the generated table in README.md's text. */
export const withEmbeddedSettingsTable = (doc: string): string =>
  withGeneratedTable(doc, 'settings-embedded', embeddedSettingsMarkdown());

/** Replaces the generated table in docs/operations.md's text. */
export const withServerSettingsTable = (doc: string): string =>
  withGeneratedTable(doc, 'settings-table', serverSettingsMarkdown());
