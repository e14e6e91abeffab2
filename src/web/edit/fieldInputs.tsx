import { useState } from 'preact/hooks';

/**
 * The labelled inputs the panel editor's forms are made of. Each writes a spec field the way
 * the spec wants it: an empty input leaves the field out (so the server's default applies), a
 * number input gives a number, a list input an array. Every input has a label of its own.
 */

export type Options = Record<string, unknown>;

/** withField returns `o` with `key` set to `value`, or without it when the value is empty. */
export function withField(o: Options, key: string, value: unknown): Options {
  const next = { ...o };
  if (value === undefined || value === '' || value === false || (typeof value === 'object' && value !== null && Object.keys(value).length === 0)) delete next[key];
  else next[key] = value;
  return next;
}

/** numberOf reads a number input: empty is no value; what the browser cannot read as a number too. */
export function numberOf(input: HTMLInputElement): number | undefined {
  return input.value.trim() === '' || Number.isNaN(input.valueAsNumber) ? undefined : input.valueAsNumber;
}

export const text = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

interface TextFieldProps {
  id: string;
  label: string;
  value: unknown;
  placeholder?: string;
  title?: string;
  /** required makes the browser refuse Apply while the field is empty, pointing at it. */
  required?: boolean;
  onValue: (value: string) => void;
}

export function TextField({ id, label, value, placeholder, title, required, onValue }: TextFieldProps) {
  return (
    <>
      <label for={id}>{label}</label>
      <input id={id} value={text(value)} placeholder={placeholder} title={title} required={required} onInput={(e) => onValue(e.currentTarget.value)} />
    </>
  );
}

interface NumberFieldProps {
  id: string;
  label: string;
  value: unknown;
  min?: number;
  step?: number | 'any';
  placeholder?: string;
  onValue: (value: number | undefined) => void;
}

export function NumberField({ id, label, value, min, step = 'any', placeholder, onValue }: NumberFieldProps) {
  return (
    <>
      <label for={id}>{label}</label>
      <input id={id} type="number" min={min} step={step} value={text(value)} placeholder={placeholder} onInput={(e) => onValue(numberOf(e.currentTarget))} />
    </>
  );
}

interface CheckFieldProps {
  id?: string;
  label: string;
  checked: boolean;
  onValue: (checked: boolean) => void;
}

export function CheckField({ id, label, checked, onValue }: CheckFieldProps) {
  return (
    <label class="inline">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onValue(e.currentTarget.checked)} /> {label}
    </label>
  );
}

interface SelectFieldProps {
  id: string;
  label: string;
  value: unknown;
  /** fallback is the spec's default, shown when the field is left out. */
  fallback: string;
  choices: readonly string[];
  /** onValue gets undefined when the default is picked, so the field stays out of the spec. */
  onValue: (value: string | undefined) => void;
}

export function SelectField({ id, label, value, fallback, choices, onValue }: SelectFieldProps) {
  return (
    <>
      <label for={id}>{label}</label>
      <select id={id} value={text(value) || fallback} onChange={(e) => onValue(e.currentTarget.value === fallback ? undefined : e.currentTarget.value)}>
        {choices.map((c) => (
          <option key={c} value={c}>
            {c === fallback ? `${c} (default)` : c}
          </option>
        ))}
      </select>
    </>
  );
}

interface ListFieldProps {
  id: string;
  label: string;
  value: readonly string[] | undefined;
  placeholder?: string;
  onValue: (value: string[]) => void;
}

/**
 * ListField edits a list of strings as comma-separated text. It keeps the text as typed (a
 * trailing comma is the start of the next item) and hands on the items without blanks.
 */
export function ListField({ id, label, value, placeholder, onValue }: ListFieldProps) {
  const [typed, setTyped] = useState((value ?? []).join(', '));
  return (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        value={typed}
        placeholder={placeholder}
        onInput={(e) => {
          setTyped(e.currentTarget.value);
          onValue(
            e.currentTarget.value
              .split(',')
              .map((s) => s.trim())
              .filter((s) => s !== ''),
          );
        }}
      />
    </>
  );
}

interface PairsFieldProps {
  id: string;
  legend: string;
  keyLabel: string;
  valueLabel: string;
  value: Readonly<Record<string, string>> | undefined;
  addLabel: string;
  onValue: (value: Record<string, string>) => void;
}

/**
 * rowProblem says what is wrong with row `i` of a map-like field: a value without a name (an
 * object has no place for it) or a name given twice (only one could be kept). Entirely blank
 * rows hold nothing and are simply left out.
 */
export function rowProblem(rows: ReadonlyArray<readonly [string, string]>, i: number, keyLabel: string): string | undefined {
  const [k, v] = rows[i];
  const name = k.trim();
  if (name === '') return v.trim() === '' ? undefined : `${keyLabel} is empty: fill it in or remove this row.`;
  if (rows.findIndex(([other]) => other.trim() === name) !== i) return `${keyLabel} "${name}" is given twice; keep one row.`;
  return undefined;
}

/**
 * PairsField edits a string-to-string object as rows of two inputs. Rows are kept as typed,
 * so a row can be filled in either order. A row that cannot become part of the object (a
 * value without a name, a name given twice) is reported at the row and marked invalid, so
 * the dialog's Apply is refused until it is fixed, instead of the row quietly vanishing.
 */
export function PairsField({ id, legend, keyLabel, valueLabel, value, addLabel, onValue }: PairsFieldProps) {
  const [rows, setRows] = useState<Array<[string, string]>>(Object.entries(value ?? {}));
  const change = (next: Array<[string, string]>): void => {
    setRows(next);
    const kept = next.filter((_, i) => next[i][0].trim() !== '' && rowProblem(next, i, keyLabel) === undefined);
    onValue(Object.fromEntries(kept.map(([k, v]) => [k.trim(), v])));
  };
  return (
    <fieldset class="pairs" id={id}>
      <legend>{legend}</legend>
      {rows.map(([k, v], i) => {
        const problem = rowProblem(rows, i, keyLabel);
        const problemId = `${id}-problem-${i}`;
        return (
          <div class="pair-row" key={i} data-invalid={problem !== undefined}>
            <label for={`${id}-key-${i}`}>{keyLabel}</label>
            <input
              id={`${id}-key-${i}`}
              value={k}
              aria-invalid={problem !== undefined}
              aria-describedby={problem ? problemId : undefined}
              // The browser's own check refuses the form's submit and points at this input.
              ref={(el) => el?.setCustomValidity(problem ?? '')}
              onInput={(e) => change(rows.map((r, j) => (j === i ? [e.currentTarget.value, r[1]] : r)))}
            />
            <label for={`${id}-value-${i}`}>{valueLabel}</label>
            <input id={`${id}-value-${i}`} value={v} onInput={(e) => change(rows.map((r, j) => (j === i ? [r[0], e.currentTarget.value] : r)))} />
            <button type="button" class="small danger" aria-label={`Remove ${keyLabel.toLowerCase()} ${k || i + 1}`} onClick={() => change(rows.filter((_, j) => j !== i))}>
              Remove
            </button>
            {problem && (
              <p class="field-error" id={problemId} role="alert">
                {problem}
              </p>
            )}
          </div>
        );
      })}
      <button type="button" class="small" onClick={() => setRows([...rows, ['', '']])}>
        {addLabel}
      </button>
    </fieldset>
  );
}

interface FormatFieldsProps {
  idPrefix: string;
  value: unknown;
  onValue: (format: Options | undefined) => void;
}

/** FormatFields edits a NumberFormat: the unit suffix and the decimal places. */
export function FormatFields({ idPrefix, value, onValue }: FormatFieldsProps) {
  const format = (value ?? {}) as Options;
  const set = (key: string, v: unknown): void => {
    const next = withField(format, key, v);
    onValue(Object.keys(next).length === 0 ? undefined : next);
  };
  return (
    <>
      <TextField id={`${idPrefix}-unit`} label="Unit" value={format.unit} placeholder="e.g. %, ms, req/s" title="Written after the number" onValue={(v) => set('unit', v)} />
      <NumberField id={`${idPrefix}-decimals`} label="Decimal places" value={format.decimalPlaces} min={0} step={1} onValue={(v) => set('decimalPlaces', v)} />
    </>
  );
}
