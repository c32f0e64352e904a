/**
 * Forms that say what is wrong, next to the field it is about: the console checks each field before
 * it sends it (an amount, an address, a whole number...), and a refusal of the service is read field
 * by field (the error envelope's `details`, an `invalid_amount` naming its field). The browser's own
 * validation is off (`noValidate`): its bubbles and ours never stand side by side.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useId, useRef, useState } from 'preact/hooks';
import { ok, Refusal } from '../api';
import { amountFieldOf, checkField, fieldOf, plainIssue, sentence, type FieldKind } from '../words';
import { failureText, isProposed, type Answer } from './load';
import { Proposed } from './bits';

export interface FieldSpec {
  label: string;
  kind?: FieldKind;
  required?: boolean;
  positive?: boolean;
  min?: number;
  max?: number;
  /** The API's name of the field when it is not the form's (`ttl_seconds` for `ttl_days`). */
  api?: string;
  /** A check of the console's own beyond its kind's: an issue phrase, or undefined. */
  check?: (value: string, values: Record<string, string>) => string | undefined;
  /** Checked only when this holds (a field of a part of the form that is switched off is not sent). */
  when?: (values: Record<string, string>) => boolean;
}

/** A form's fields by name, as text (amounts stay decimal strings, never numbers). */
export const fields = (form: HTMLFormElement): Record<string, string> =>
  Object.fromEntries([...new FormData(form).entries()].map(([k, v]) => [k, String(v).trim()]));

export type Form<N extends string> = ReturnType<typeof useForm<N>>;

export function useForm<N extends string>(specs: Record<N, FieldSpec>) {
  const [errors, setErrors] = useState<Partial<Record<N, string>>>({});
  const [formError, setFormError] = useState<string>();
  /** The sentence of a change proposed and waiting for other admins' signatures. */
  const [proposed, setProposed] = useState<string>();
  const [busy, setBusy] = useState(false);
  const ref = useRef<HTMLFormElement>(null);
  const names = Object.keys(specs) as N[];
  const byApi = (field: string): N | undefined =>
    names.find((n) => (specs[n].api ?? n) === field) ?? names.find((n) => n === field);

  const focusFirst = (found: Partial<Record<N, string>>) => {
    const first = names.find((n) => found[n]);
    const input = first && ref.current?.querySelector<HTMLElement>(`[name="${first}"]`);
    input?.focus();
  };

  /** The refusal, field by field where it names fields of this form; the rest for the whole form. */
  const refused = (err: unknown) => {
    if (isProposed(err)) {
      setErrors({});
      setFormError(undefined);
      setProposed(err.message);
      return;
    }
    const found: Partial<Record<N, string>> = {};
    const rest: string[] = [];
    if (err instanceof Refusal && err.details.length > 0) {
      for (const d of err.details) {
        const field = fieldOf(d.path);
        const name = field === undefined ? undefined : byApi(field);
        if (name) found[name] = sentence(specs[name].label, plainIssue(d.issue, specs[name].kind));
        else rest.push(failureText(new Refusal(err.code, err.message, [d])));
      }
    } else if (err instanceof Refusal && err.code === 'invalid_amount') {
      const apiNames = names.map((n) => specs[n].api ?? n);
      const field = amountFieldOf(err.message, apiNames);
      const name = field === undefined ? undefined : byApi(field);
      const phrase = err.message.replace(/^The \w+ /, '').replace(/;.*$/, '');
      if (name) found[name] = sentence(specs[name].label, phrase);
      else rest.push(err.message);
    } else rest.push(failureText(err));
    setErrors(found);
    setFormError(rest.length > 0 ? rest.join(' ') : undefined);
    focusFirst(found);
  };

  /**
   * A form's submit handler: its fields checked, then sent by `request` (as text); the form reset once
   * it succeeded and `done` told the answer.
   */
  const submit =
    <T,>(
      request: (values: Record<string, string>) => Answer<T>,
      done?: (answer: T) => void,
      { reset = true }: { reset?: boolean } = {},
    ) =>
    async (e: Event) => {
      e.preventDefault();
      const form = e.currentTarget as HTMLFormElement;
      const values = fields(form);
      const found: Partial<Record<N, string>> = {};
      for (const n of names) {
        const s = specs[n];
        if (s.when && !s.when(values)) continue;
        const issue = checkField(values[n] ?? '', s.kind ?? 'text', s) ?? s.check?.(values[n] ?? '', values);
        if (issue) found[n] = sentence(s.label, issue);
      }
      setErrors(found);
      setFormError(undefined);
      setProposed(undefined);
      if (Object.keys(found).length > 0) return focusFirst(found);
      setBusy(true);
      try {
        const answer = await ok(request(values));
        if (reset) form.reset();
        done?.(answer);
      } catch (err) {
        refused(err);
      } finally {
        setBusy(false);
      }
    };

  /** Forgets a field's error as soon as it is changed. */
  const onInput = (e: Event) => {
    const name = (e.target as HTMLInputElement).name as N;
    if (errors[name]) setErrors({ ...errors, [name]: undefined });
  };

  return {
    specs,
    errors,
    formError,
    proposed,
    busy,
    ref,
    submit,
    onInput,
    refused,
    setFormError,
    /** Forgets the proposal said (once the other admins' signatures made it, or another came). */
    clearProposed: () => setProposed(undefined),
  };
}

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'name' | 'form' | 'label'>;

/** A field of a form: its label, its input, and its error right after it (tied to it for a screen reader). */
export function Field<N extends string>({
  form,
  name,
  hint,
  children,
  ...input
}: { form: Form<N>; name: N; hint?: string; children?: ComponentChildren } & InputProps) {
  const id = useId();
  const error = form.errors[name];
  const spec = form.specs[name];
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${error ? ' invalid' : ''}`}>
      <label for={id}>
        {spec.label}
        {!spec.required && (
          <span class="optional" aria-hidden="true">
            {' '}
            (optional)
          </span>
        )}
      </label>
      {children ?? (
        <input
          id={id}
          name={name}
          aria-invalid={error ? 'true' : undefined}
          aria-required={spec.required ? 'true' : undefined}
          aria-describedby={described}
          inputMode={spec.kind === 'amount' ? 'decimal' : spec.kind === 'integer' ? 'numeric' : undefined}
          autoComplete="off"
          class={
            spec.kind === 'address' || spec.kind === 'wallets' || spec.kind === 'url' ? 'mono' : undefined
          }
          {...input}
        />
      )}
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {error && (
        <span class="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}

/** A form: no browser validation, its failure that names no field shown under it. */
export function FormBox<N extends string>({
  form,
  onSubmit,
  children,
  label,
  class: className = 'row',
  onChange,
}: {
  form: Form<N>;
  onSubmit: (e: Event) => void;
  children: ComponentChildren;
  label?: string;
  class?: string;
  /** Told of every change of a field. */
  onChange?: () => void;
}) {
  return (
    <form
      ref={form.ref}
      class={className}
      noValidate
      aria-label={label}
      aria-busy={form.busy ? 'true' : undefined}
      onSubmit={onSubmit}
      onInput={(e) => {
        form.onInput(e);
        onChange?.();
      }}
    >
      {children}
      {form.formError && (
        <p role="alert" class="error form-error">
          {form.formError}
        </p>
      )}
      {form.proposed && (
        <div class="form-error">
          <Proposed text={form.proposed} />
        </div>
      )}
    </form>
  );
}
