import { useState } from 'preact/hooks';
import type { DashboardSpec } from '../../dashboards/types.js';
import { Dialog } from '../lib/dialog.js';

interface JsonDialogProps {
  spec: DashboardSpec;
  onApply: (spec: DashboardSpec) => void;
  onClose: () => void;
}

/** JsonDialog edits the whole spec as JSON; the draft takes it when it parses to an object. */
export function JsonDialog({ spec, onApply, onClose }: JsonDialogProps) {
  const [text, setText] = useState(JSON.stringify(spec, null, 2));
  const [problem, setProblem] = useState<string>();
  const apply = (e: Event): void => {
    e.preventDefault();
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the spec must be a JSON object');
      onApply(parsed as DashboardSpec);
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <Dialog titleId="json-title" onClose={onClose} class="wide">
      <form class="dialog-form" onSubmit={apply}>
        <h2 id="json-title">Dashboard JSON</h2>
        <label for="dash-json">The whole spec; the server checks it on save</label>
        <textarea id="dash-json" rows={24} spellcheck={false} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        {problem && (
          <p class="panel-error" role="alert">
            {problem}
          </p>
        )}
        <div class="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary">
            Apply
          </button>
        </div>
      </form>
    </Dialog>
  );
}
