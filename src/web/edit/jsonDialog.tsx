import { useState } from 'preact/hooks';
import type { DashboardSpec } from '../../dashboards/types.js';
import { FormDialog, JsonField, parseJsonObject } from './formDialog.js';

interface JsonDialogProps {
  spec: DashboardSpec;
  onApply: (spec: DashboardSpec) => void;
  onClose: () => void;
}

/** JsonDialog edits the whole spec as JSON; the draft takes it when it parses to an object. */
export function JsonDialog({ spec, onApply, onClose }: JsonDialogProps) {
  const [text, setText] = useState(JSON.stringify(spec, null, 2));
  const [problem, setProblem] = useState<string>();
  const apply = (): void => {
    try {
      onApply(parseJsonObject(text, 'The spec') as unknown as DashboardSpec);
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <FormDialog titleId="json-title" title="Dashboard JSON" problem={problem} onSubmit={apply} onClose={onClose}>
      <JsonField id="dash-json" label="The whole spec; the server checks it on save" rows={24} value={text} onInput={setText} />
    </FormDialog>
  );
}
