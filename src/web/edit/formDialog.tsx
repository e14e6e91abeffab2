import type { ComponentChildren } from 'preact';
import { Dialog } from '../lib/dialog.js';

interface FormDialogProps {
  titleId: string;
  title: string;
  /** formClass is added to the form's class, for the editor's own styles and for tests. */
  formClass?: string;
  submitLabel?: string;
  /** problem is shown above the buttons when Apply was refused (bad JSON, the server's findings). */
  problem?: ComponentChildren;
  busy?: boolean;
  onSubmit: () => void;
  onClose: () => void;
  children: ComponentChildren;
}

/**
 * FormDialog is the shape every edit-mode dialog shares: a wide modal holding one form with
 * its heading, its fields, the reason Apply was refused, and Cancel and Apply, so each dialog
 * only says what its fields are.
 */
export function FormDialog({ titleId, title, formClass, submitLabel = 'Apply', problem, busy = false, onSubmit, onClose, children }: FormDialogProps) {
  return (
    <Dialog titleId={titleId} onClose={onClose} class="wide">
      <form
        class={`dialog-form${formClass ? ` ${formClass}` : ''}`}
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit();
        }}
      >
        <h2 id={titleId}>{title}</h2>
        {children}
        {problem && (
          <div class="panel-error" role="alert">
            {problem}
          </div>
        )}
        <div class="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Checking…' : submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

interface JsonFieldProps {
  id: string;
  label: string;
  value: string;
  rows: number;
  onInput: (text: string) => void;
}

/** JsonField is a labelled JSON textarea, without spell checking. */
export function JsonField({ id, label, value, rows, onInput }: JsonFieldProps) {
  return (
    <>
      <label for={id}>{label}</label>
      <textarea id={id} rows={rows} spellcheck={false} value={value} onInput={(e) => onInput(e.currentTarget.value)} />
    </>
  );
}

/**
 * parseJsonObject reads a JSON field that must hold an object (empty text is an empty object
 * when `emptyIsObject`); it throws an Error whose message says what is wrong, prefixed by `what`.
 */
export function parseJsonObject(text: string, what: string, emptyIsObject = false): Record<string, unknown> {
  if (emptyIsObject && text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${what} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${what} must be a JSON object`);
  return parsed as Record<string, unknown>;
}
