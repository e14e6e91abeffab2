import type { ComponentChildren } from 'preact';
import { useContext, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { markPanelDrawn } from '../lib/marks.js';
import type { Panel } from '../../dashboards/types.js';
import type { RunState } from '../lib/queryRun.js';
import { HISTOGRAM_NOTE } from '../lib/series.js';
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
  const linksButton = useRef<HTMLButtonElement>(null);
  /** closeMenu hides the menu; focus goes back to its button unless Tab is taking it elsewhere. */
  const closeMenu = (refocus = true): void => {
    setMenuOpen(false);
    if (refocus) linksButton.current?.focus();
  };
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
            <button
              ref={linksButton}
              class="icon links-button"
              aria-haspopup="menu"
              aria-expanded={menuOpen}
              aria-label={`Links of ${panel.title}`}
              onClick={() => setMenuOpen(!menuOpen)}
              onKeyDown={(e) => {
                if (e.key === 'Escape' && menuOpen) closeMenu();
                else if (e.key === 'ArrowDown' && !menuOpen) {
                  e.preventDefault();
                  setMenuOpen(true);
                }
              }}
            >
              Links ▾
            </button>
            {menuOpen && <LinkMenu links={links} onClose={(refocus) => closeMenu(refocus)} />}
          </span>
        )}
        {running && (
          <span class="progress" role="status">
            {run.waiting ? 'Waiting for variable options…' : `${run.received} results…`}
          </span>
        )}
      </header>
      {running && <div class="progress-bar" aria-hidden="true" />}
      {run?.warning && !error && (
        <p class="warning" role="status">
          ⚠ {run.warning}
        </p>
      )}
      {run?.store.histograms && !error && (
        <p class="note" role="note">
          {HISTOGRAM_NOTE}
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

/**
 * LinkMenu lists the interlinks by group. It takes focus on its first item when it opens;
 * arrow keys move, Home and End jump, Enter follows a link, Escape and Tab close it.
 */
function LinkMenu({ links, onClose }: { links: InterlinkChoice[]; onClose: (refocus?: boolean) => void }) {
  const menu = useRef<HTMLDivElement>(null);
  // Focus moves in the same task that shows the menu: a key pressed as soon as the menu
  // appears (Enter right after ArrowDown) reaches the first item, not the button that would
  // close the menu again.
  useLayoutEffect(() => {
    menu.current?.querySelector<HTMLElement>('[role=menuitem]')?.focus();
  }, []);
  const groups = new Map<string, InterlinkChoice[]>();
  for (const link of links) {
    const g = link.group ?? '';
    groups.set(g, [...(groups.get(g) ?? []), link]);
  }
  const onKeyDown = (e: KeyboardEvent): void => {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role=menuitem]') ?? [])];
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onClose();
    } else if (e.key === 'Tab') onClose(false);
    else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      (e.key === 'Home' ? items[0] : items[items.length - 1])?.focus();
    } else moveFocusByArrow(e, '[role=menuitem]');
  };
  return (
    <div class="popover link-menu" role="menu" aria-label={`Links`} ref={menu} onKeyDown={onKeyDown}>
      {[...groups.entries()].map(([group, items]) => (
        <div key={group}>
          {group && <div class="menu-group">{group}</div>}
          {items.map((link) => (
            <a role="menuitem" href={link.href} key={link.href} tabIndex={-1}>
              {link.label}
            </a>
          ))}
        </div>
      ))}
    </div>
  );
}
