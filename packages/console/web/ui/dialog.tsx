/**
 * Dialogs (the browser's modal <dialog>: focus kept inside, Escape closes). `ConfirmDialog` asks
 * before an action that cannot be taken back, saying what it breaks; `SecretDialog` shows a secret
 * the service gives once (a new API key, an invitation code, a signing secret) until the person says
 * it is stored, with a copy button: it is never put in the address or in storage.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { fields } from './form';
import { failureText, isProposed } from './load';
import { Copy, Proposed } from './bits';

export function Dialog({
  title,
  onClose,
  children,
  dismissable = true,
  testId,
}: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  /** Escape and the close button close it; when false only the dialog's own buttons do. */
  dismissable?: boolean;
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const close = useRef(onClose);
  close.current = onClose;
  useLayoutEffect(() => {
    const dialog = ref.current!;
    if (!dialog.open) dialog.showModal();
    const cancel = (e: Event) => {
      e.preventDefault();
      if (dismissable) close.current();
    };
    dialog.addEventListener('cancel', cancel);
    return () => {
      dialog.removeEventListener('cancel', cancel);
      if (dialog.open) dialog.close();
    };
  }, [dismissable]);
  return (
    <dialog ref={ref} aria-labelledby={`${id}-title`} class="dialog" data-testid={testId}>
      <div class="dialog-head">
        <h2 id={`${id}-title`}>{title}</h2>
        {dismissable && (
          <button type="button" class="secondary small" onClick={onClose}>
            Close
          </button>
        )}
      </div>
      {children}
    </dialog>
  );
}

/**
 * Asks before an action: what it breaks, then the action's own button (and Cancel). With `typed`,
 * the person types that word first. Extra fields (`children`) are sent to `onConfirm` as text.
 */
export function ConfirmDialog({
  title,
  breaks,
  confirm,
  typed,
  keep = 'Cancel',
  children,
  onConfirm,
  onClose,
}: {
  title: string;
  breaks: ComponentChildren;
  confirm: string;
  typed?: string;
  /** The button that closes it, nothing done ("Cancel"; another word when the action is a cancel). */
  keep?: string;
  children?: ComponentChildren;
  onConfirm: (values: Record<string, string>) => Promise<unknown>;
  onClose: () => void;
}) {
  const [error, setError] = useState<string>();
  /** A change proposed, waiting for other admins: said, and nothing more to confirm. */
  const [proposed, setProposed] = useState<string>();
  const [typedError, setTypedError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const id = useId();
  return (
    <Dialog title={title} onClose={onClose}>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          const values = fields(e.currentTarget as HTMLFormElement);
          if (typed && values.confirmation !== typed) {
            setTypedError(`Type ${typed} (in capitals) to confirm; nothing was done.`);
            (e.currentTarget as HTMLFormElement)
              .querySelector<HTMLInputElement>('[name=confirmation]')
              ?.focus();
            return;
          }
          setTypedError(undefined);
          setError(undefined);
          setBusy(true);
          try {
            await onConfirm(values);
            onClose();
          } catch (err) {
            if (isProposed(err)) setProposed(err.message);
            else setError(failureText(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <div class="breaks">{breaks}</div>
        {children}
        {typed && (
          <div class={`field${typedError ? ' invalid' : ''}`}>
            <label for={`${id}-typed`}>
              Type <strong>{typed}</strong> to confirm
            </label>
            <input
              id={`${id}-typed`}
              name="confirmation"
              autoComplete="off"
              aria-invalid={typedError ? 'true' : undefined}
              aria-describedby={typedError ? `${id}-typed-error` : undefined}
            />
            {typedError && (
              <span class="field-error" id={`${id}-typed-error`}>
                {typedError}
              </span>
            )}
          </div>
        )}
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <Proposed text={proposed} />
        <div class="actions">
          {!proposed && (
            <button type="submit" class="danger" disabled={busy}>
              {confirm}
            </button>
          )}
          <button type="button" class="secondary" onClick={onClose} autoFocus>
            {proposed ? 'Done' : keep}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** A secret the service gave once: what it is, its value, what to do with it. */
export interface Secret {
  title: string;
  value: string;
  about: ComponentChildren;
}

/** A secret the service shows once: on screen until dismissed, copyable, never stored. */
export function SecretDialog({
  secret: { title, value, about },
  onDone,
}: {
  secret: Secret;
  onDone: () => void;
}) {
  const done = useRef<HTMLButtonElement>(null);
  useEffect(() => done.current?.focus(), []);
  return (
    <Dialog title={title} onClose={onDone} dismissable={false} testId="secret">
      <div class="once">
        <p>
          <strong>Shown once:</strong> copy it now. The service keeps only its digest, and this page keeps it
          nowhere: once you close this, it is gone.
        </p>
        <code class="mono secret" data-testid="shown-once">
          {value}
        </code>
        <div class="actions">
          <Copy text={value} label={`Copy it: ${title}`} />
        </div>
        <div class="muted">{about}</div>
      </div>
      <div class="actions">
        <button type="button" ref={done} onClick={onDone}>
          I have stored it: close
        </button>
      </div>
    </Dialog>
  );
}
