import { useRef, useState } from 'preact/hooks';
import { moveFocusByArrow } from '../lib/keyboard.js';
import { describeRange, QUICK_RANGES, resolveRange, toInputValue, type TimeRange } from '../lib/time.js';

/**
 * TimeRangePicker offers relative windows and an absolute from/to. From the keyboard: Enter or
 * ArrowDown opens it, the arrow keys move through the relative ranges, Enter picks one, and
 * Escape closes it; focus returns to the button either way.
 */
export function TimeRangePicker({ range, onChange }: { range: TimeRange; onChange: (r: TimeRange) => void }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  /** close hides the popover and puts focus back on the button that opened it. */
  const close = (): void => {
    setOpen(false);
    button.current?.focus();
  };
  const resolved = resolveRange(range) ?? { fromMs: Date.now() - 3_600_000, toMs: Date.now() };
  const [from, setFrom] = useState(toInputValue(resolved.fromMs));
  const [to, setTo] = useState(toInputValue(resolved.toMs));
  const pick = (r: TimeRange): void => {
    onChange(r);
    close();
  };
  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.key === 'Escape' && open) {
      e.preventDefault();
      close();
    } else if (e.key === 'ArrowDown' && !open && e.target === button.current) {
      e.preventDefault();
      setOpen(true);
    } else if (open) moveFocusByArrow(e, '.quick-range');
  };
  return (
    <div class="picker time-picker" onKeyDown={onKeyDown}>
      <button ref={button} class="picker-button" aria-haspopup="dialog" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="time-range">
        🕑 {describeRange(range)}
      </button>
      {open && (
        <div class="popover picker-pop" role="dialog" aria-label="Time range">
          <div class="quick-ranges" role="group" aria-label="Relative ranges">
            {QUICK_RANGES.map((d) => (
              <button key={d} class="quick-range" aria-pressed={range.from === `now-${d}` && range.to === 'now'} onClick={() => pick({ from: `now-${d}`, to: 'now' })}>
                Last {d}
              </button>
            ))}
          </div>
          <form
            class="absolute-range"
            onSubmit={(e) => {
              e.preventDefault();
              const f = new Date(from).getTime();
              const t = new Date(to).getTime();
              if (Number.isFinite(f) && Number.isFinite(t) && t > f) pick({ from: String(f), to: String(t) });
            }}
          >
            <label for="range-from">From</label>
            <input id="range-from" type="datetime-local" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
            <label for="range-to">To</label>
            <input id="range-to" type="datetime-local" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
            <button type="submit">Apply</button>
          </form>
        </div>
      )}
    </div>
  );
}
