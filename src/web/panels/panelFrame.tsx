import type { ComponentChildren } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { markPanelDrawn } from '../lib/marks.js';
import type { Panel } from '../../dashboards/types.js';
import type { RunState } from '../lib/queryRun.js';
import { moveFocusByArrow } from '../lib/keyboard.js';
import { Markdown } from './markdown.js';
import { displayText, PanelEnvContext } from './context.js';

export interface InterlinkChoice {
  label: string;
  href: string;
  group?: string;
}

interface PanelFrameProps {
  panel: Panel;
  run?: RunState;
  /** problem is an error found before running (a variable without a value). */
  problem?: string;
  links?: InterlinkChoice[];
  children: ComponentChildren;
}

/**
 * PanelFrame is the chrome around every panel: title, the description behind a ? button,
 * the interlinks menu, a progress bar while streams run, and the error or partial-result
 * warning in place, so one failed panel never hides the others.
 */
export function PanelFrame({ panel, run, problem, links, children }: PanelFrameProps) {
  const env = useContext(PanelEnvContext);
  const [helpOpen, setHelpOpen] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const error = problem ?? run?.error;
  const running = run !== undefined && run.running > 0;
  const state = error ? 'error' : running ? 'running' : 'done';
  useEffect(() => {
    if (state !== 'running') markPanelDrawn(panel.id);
  }, [state, panel.id]);
  return (
    <section class="panel" data-kind={panel.kind} data-panel-id={panel.id} data-state={state} aria-busy={running}>
      <header class="panel-head">
        <h3 class="panel-title">{env ? displayText(panel.title, env) : panel.title}</h3>
        {panel.description && (
          <span class="help">
            <button class="icon" aria-label={`About ${panel.title}`} aria-expanded={helpOpen} onClick={() => setHelpOpen(!helpOpen)} onBlur={() => setHelpOpen(false)}>
              ?
            </button>
            {helpOpen && (
              <div class="popover" role="tooltip">
                <Markdown text={env ? displayText(panel.description, env) : panel.description} />
              </div>
            )}
          </span>
        )}
        {links && links.length > 0 && (
          <span class="menu">
            <button class="icon links-button" aria-haspopup="menu" aria-expanded={menuOpen} onClick={() => setMenuOpen(!menuOpen)} onKeyDown={(e) => e.key === 'Escape' && setMenuOpen(false)}>
              Links ▾
            </button>
            {menuOpen && <LinkMenu links={links} onClose={() => setMenuOpen(false)} />}
          </span>
        )}
        {running && (
          <span class="progress" role="status">
            {run.received} results…
          </span>
        )}
      </header>
      {running && <div class="progress-bar" aria-hidden="true" />}
      {run?.warning && !error && (
        <p class="warning" role="status">
          ⚠ {run.warning}
        </p>
      )}
      {error ? (
        <p class="panel-error" role="alert">
          {error}
        </p>
      ) : (
        <div class="panel-body">{children}</div>
      )}
    </section>
  );
}

/** LinkMenu lists the interlinks by group; arrow keys move, Escape closes. */
function LinkMenu({ links, onClose }: { links: InterlinkChoice[]; onClose: () => void }) {
  const groups = new Map<string, InterlinkChoice[]>();
  for (const link of links) {
    const g = link.group ?? '';
    groups.set(g, [...(groups.get(g) ?? []), link]);
  }
  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.key === 'Escape') onClose();
    else moveFocusByArrow(e, 'a');
  };
  return (
    <div class="popover link-menu" role="menu" onKeyDown={onKeyDown}>
      {[...groups.entries()].map(([group, items]) => (
        <div key={group}>
          {group && <div class="menu-group">{group}</div>}
          {items.map((link) => (
            <a role="menuitem" href={link.href} key={link.href}>
              {link.label}
            </a>
          ))}
        </div>
      ))}
    </div>
  );
}
