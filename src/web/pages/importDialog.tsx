import { useState } from 'preact/hooks';
import { RequestFailure } from '../lib/api.js';
import { dashboards, withoutLibraryRef, type DashboardIssue } from '../lib/dashboards.js';

/**
 * ImportDialog reads a pasted spec, drops libraryRef as the spec requires, validates it with
 * the server's validate endpoint and lists every error and warning at its JSON path. Only a
 * valid spec can be created.
 */
export function ImportDialog({ org, onCreated, onClose }: { org: string; onCreated: (id: string) => void; onClose: () => void }) {
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [issues, setIssues] = useState<DashboardIssue[]>([]);
  const [message, setMessage] = useState<string>();
  const [busy, setBusy] = useState(false);

  const run = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setIssues([]);
    setMessage(undefined);
    try {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        setMessage(`Not JSON: ${(err as Error).message}`);
        return;
      }
      const spec = withoutLibraryRef(parsed);
      const result = await dashboards.validate(org, spec);
      setIssues([...result.errors, ...result.warnings]);
      if (!result.valid) {
        setMessage(`The spec has ${result.errors.length} error${result.errors.length === 1 ? '' : 's'}; nothing was created.`);
        return;
      }
      const record = await dashboards.create(org, spec, name.trim() || 'Imported dashboard');
      onCreated(record.id);
    } catch (err) {
      setMessage(err instanceof RequestFailure ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="dialog-backdrop">
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="import-title" onKeyDown={(e) => e.key === 'Escape' && onClose()}>
      <form class="dialog-form" onSubmit={run}>
        <h2 id="import-title">Import from JSON</h2>
        <label for="import-name">Name</label>
        <input id="import-name" value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="Imported dashboard" />
        <label for="import-spec">Dashboard spec (JSON)</label>
        <textarea id="import-spec" rows={14} spellcheck={false} value={text} onInput={(e) => setText(e.currentTarget.value)} autoFocus />
        {message && (
          <p class="panel-error" role="alert">
            {message}
          </p>
        )}
        {issues.length > 0 && (
          <ul class="issues" aria-label="Findings">
            {issues.map((issue, i) => (
              <li key={i} class={`issue ${issue.severity}`} data-path={issue.path}>
                <code class="issue-path">{issue.path}</code> <span class="issue-severity">{issue.severity}</span> {issue.message}
              </li>
            ))}
          </ul>
        )}
        <div class="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={busy || text.trim() === ''}>
            Validate and import
          </button>
        </div>
      </form>
      </div>
    </div>
  );
}
