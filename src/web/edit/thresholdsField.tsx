import type { ColorStop } from '../../dashboards/types.js';
import { numberOf, text } from './fieldInputs.js';

interface ThresholdsFieldProps {
  value: readonly ColorStop[] | undefined;
  onValue: (stops: ColorStop[]) => void;
}

/**
 * ThresholdsField edits a label panel's color stops, one row each (value and CSS color). A
 * row whose value is not a number yet is handed on without one, so the server's check names
 * the stop that lacks it instead of the row quietly vanishing.
 */
export function ThresholdsField({ value, onValue }: ThresholdsFieldProps) {
  const stops = value ?? [];
  const change = (i: number, stop: Partial<ColorStop>): void => onValue(stops.map((s, j) => (j === i ? ({ ...s, ...stop } as ColorStop) : s)));
  return (
    <fieldset class="thresholds" id="label-thresholds">
      <legend>Thresholds (the highest stop at or below the value colors the card)</legend>
      {stops.length === 0 && <p class="hint">No thresholds: cards take the panel's color.</p>}
      {stops.map((s, i) => (
        <div class="pair-row" key={i} data-threshold-index={i}>
          <label for={`threshold-value-${i}`}>From value</label>
          <input id={`threshold-value-${i}`} type="number" step="any" value={text(s.value)} onInput={(e) => change(i, { value: numberOf(e.currentTarget) as number })} />
          <label for={`threshold-color-${i}`}>Color</label>
          <input id={`threshold-color-${i}`} value={text(s.color)} placeholder="#d62728" onInput={(e) => change(i, { color: e.currentTarget.value.trim() })} />
          <span class="swatch" aria-hidden="true" style={{ background: s.color }} />
          <button type="button" class="small danger" aria-label={`Remove threshold ${i + 1}`} onClick={() => onValue(stops.filter((_, j) => j !== i))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" class="small" onClick={() => onValue([...stops, { value: (stops.at(-1)?.value ?? -1) + 1, color: '#2ca02c' }])}>
        Add threshold
      </button>
    </fieldset>
  );
}
