import { useRef, useState } from 'preact/hooks';
import type { DashboardVariable } from '../../dashboards/types.js';
import { moveFocusByArrow } from '../lib/keyboard.js';
import { ALL_VALUE } from '../lib/variables.js';

interface VariablePickerProps {
  variable: DashboardVariable;
  options: string[] | undefined;
  selected: string[];
  onChange: (values: string[]) => void;
}

/**
 * VariablePicker is a single select, or for multi variables a listbox of checkboxes with All
 * (substituted as `.+`). Enter or ArrowDown opens it, arrow keys move through the options, Space toggles, Escape closes and
 * returns focus to the button.
 */
export function VariablePicker({ variable, options, selected, onChange }: VariablePickerProps) {
  const id = `var-${variable.name}`;
  const label = variable.label ?? variable.name;
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  if (!variable.multi) {
    const values = options ?? [];
    const current = selected[0] ?? '';
    return (
      <div class="picker variable">
        <label for={id}>{label}</label>
        <select id={id} value={current} onChange={(e) => onChange([e.currentTarget.value])}>
          {current !== '' && !values.includes(current) && <option value={current}>{current}</option>}
          {values.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      </div>
    );
  }
  const isAll = selected.length === 0 || (selected.length === 1 && selected[0] === ALL_VALUE);
  const toggle = (v: string): void => {
    const rest = selected.filter((x) => x !== ALL_VALUE);
    onChange(rest.includes(v) ? rest.filter((x) => x !== v) : [...rest, v]);
  };
  const text = isAll ? 'All' : selected.join(', ');
  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.key === 'Escape' && open) {
      e.preventDefault();
      setOpen(false);
      button.current?.focus();
    } else if (e.key === 'ArrowDown' && !open && e.target === button.current) {
      e.preventDefault();
      setOpen(true);
    } else if (open) moveFocusByArrow(e, 'input[type=checkbox]');
  };
  return (
    <div class="picker variable" onKeyDown={onKeyDown}>
      <span class="picker-label" id={`${id}-label`}>
        {label}
      </span>
      <button ref={button} id={id} class="picker-button" aria-haspopup="listbox" aria-expanded={open} aria-labelledby={`${id}-label ${id}`} onClick={() => setOpen(!open)}>
        {text} ▾
      </button>
      {open && (
        <div class="popover picker-pop" role="listbox" aria-multiselectable="true" aria-labelledby={`${id}-label`}>
          {variable.includeAll && (
            <label class="option">
              <input type="checkbox" checked={isAll} onChange={() => onChange([ALL_VALUE])} /> All
            </label>
          )}
          {(options ?? []).map((v) => (
            <label class="option" key={v}>
              <input type="checkbox" checked={!isAll && selected.includes(v)} onChange={() => toggle(v)} /> {v}
            </label>
          ))}
        </div>
      )}
    </div>
  );
}
