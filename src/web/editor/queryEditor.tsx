import { autocompletion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { linter, type Diagnostic } from '@codemirror/lint';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { PromQLExtension } from '@prometheus-io/codemirror-promql';
import { useEffect, useRef } from 'preact/hooks';
import { call } from '../lib/api.js';
import { helperClient } from './helperClient.js';
import { logqlLanguage } from './logqlLanguage.js';

export type Language = 'promql' | 'logql';

interface ValidateAnswer {
  valid: boolean;
  kind?: string;
  error?: { code: string; message: string; position?: { start: number; end: number } };
}

/** validateAt asks the server's validate endpoint and turns its positioned error into a diagnostic. */
function serverLinter(language: Language, onKind: (kind: string | undefined) => void): Extension {
  return linter(
    async (view): Promise<Diagnostic[]> => {
      const q = view.state.doc.toString();
      if (q.trim() === '') return [];
      try {
        const answer = await call<ValidateAnswer>(`/api/v1/${language}/validate`, { body: { q } });
        onKind(answer.valid ? answer.kind : undefined);
        if (answer.valid || !answer.error) return [];
        const len = view.state.doc.length;
        let from = Math.min(answer.error.position?.start ?? 0, len);
        let to = Math.max(from, Math.min(answer.error.position?.end ?? len, len));
        // An error at the very end (an unfinished expression) marks the last character, so it shows.
        if (to === from) {
          if (to < len) to++;
          else from = Math.max(0, from - 1);
        }
        return [{ from, to, severity: 'error', message: answer.error.message }];
      } catch {
        return [];
      }
    },
    { delay: 300 },
  );
}

/**
 * logCompletion offers log label names inside `{...}` and their values after `label=`, from
 * the logs helper endpoints.
 */
async function logCompletion(context: CompletionContext): Promise<CompletionResult | null> {
  const before = context.state.doc.sliceString(0, context.pos);
  const open = before.lastIndexOf('{');
  if (open < 0 || before.lastIndexOf('}') > open) return null;
  const valueMatch = /([A-Za-z_][A-Za-z0-9_.]*)\s*(=~|!=|!~|=)\s*"([^"]*)$/.exec(before);
  if (valueMatch) {
    const { data } = await call<{ data: string[] }>('/api/v1/logs/tagvalues', { body: { key: valueMatch[1], limit: 200 } });
    return { from: context.pos - valueMatch[3].length, options: data.map((v) => ({ label: v, type: 'text' })), validFor: /^[^"]*$/ };
  }
  const word = context.matchBefore(/[A-Za-z_][A-Za-z0-9_.]*/);
  if (!word && !context.explicit && !/[{,]\s*$/.test(before)) return null;
  const { data } = await call<{ data: string[] }>('/api/v1/logs/tags', { body: { limit: 500 } });
  return { from: word ? word.from : context.pos, options: data.map((k) => ({ label: k, type: 'property' })), validFor: /^[A-Za-z0-9_.]*$/ };
}

function extensionsFor(language: Language, onRun: () => void, onKind: (kind: string | undefined) => void): Extension[] {
  const common = [
    history(),
    keymap.of([{ key: 'Mod-Enter', run: () => (onRun(), true) }, ...defaultKeymap, ...historyKeymap]),
    syntaxHighlighting(defaultHighlightStyle),
    serverLinter(language, onKind),
    EditorView.lineWrapping,
    placeholder(language === 'promql' ? 'PromQL, e.g. sum by (service_name) (rate(http_requests_total[5m]))' : 'LogQL, e.g. {service_name="checkout"} |= "error"'),
    EditorView.contentAttributes.of({ 'aria-label': language === 'promql' ? 'PromQL query' : 'LogQL query' }),
  ];
  if (language === 'promql') {
    const promql = new PromQLExtension().setComplete({ remote: helperClient() }).activateLinter(false);
    return [...common, promql.asExtension()];
  }
  return [...common, logqlLanguage, autocompletion({ override: [logCompletion] })];
}

interface QueryEditorProps {
  language: Language;
  value: string;
  onChange: (text: string) => void;
  onRun: () => void;
  onKind?: (kind: string | undefined) => void;
}

/** REPORTED_KEPT bounds the texts remembered as reported: echoes lag by a few edits at most. */
const REPORTED_KEPT = 64;

function rememberReported(reported: Set<string>, text: string): void {
  reported.delete(text);
  reported.add(text);
  if (reported.size > REPORTED_KEPT) reported.delete(reported.values().next().value as string);
}

/** QueryEditor is CodeMirror with highlighting, completion and validate-as-you-type for one language. */
export function QueryEditor({ language, value, onChange, onRun, onKind }: QueryEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const handlers = useRef({ onChange, onRun, onKind });
  handlers.current = { onChange, onRun, onKind };
  // The texts this editor reported while being typed in. The parent echoes them back as `value`,
  // and an echo can arrive after newer keystrokes (effects run after paint): applying a stale
  // echo would undo typing and start a loop between two texts. Cleared on blur, so a value set
  // from outside afterwards (a history entry, a loaded query) is always applied.
  const reported = useRef(new Set<string>());

  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          ...extensionsFor(language, () => handlers.current.onRun(), (k) => handlers.current.onKind?.(k)),
          EditorView.updateListener.of((u) => {
            if (!u.docChanged) return;
            const text = u.state.doc.toString();
            rememberReported(reported.current, text);
            handlers.current.onChange(text);
          }),
          EditorView.domEventHandlers({
            blur: (_event, editor) => {
              reported.current = new Set([editor.state.doc.toString()]);
            },
          }),
        ],
      }),
    });
    view.current = v;
    return () => v.destroy();
  }, [language]);

  useEffect(() => {
    const v = view.current;
    if (!v || reported.current.has(value)) return;
    if (v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  return <div class="query-editor" data-language={language} ref={host} />;
}
