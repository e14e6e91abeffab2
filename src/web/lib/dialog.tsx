import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

interface DialogProps {
  /** titleId names the heading inside `children` that labels the dialog. */
  titleId: string;
  onClose: () => void;
  class?: string;
  children: ComponentChildren;
}

const FOCUSABLE = 'input, select, textarea, button, [contenteditable=true], [tabindex]:not([tabindex="-1"])';

/**
 * Dialog is a modal: it takes focus when it opens (its first field), keeps Tab inside, closes
 * on Escape, and gives focus back to what had it before, so keyboard users never lose their place.
 */
export function Dialog({ titleId, onClose, children, class: className }: DialogProps) {
  const box = useRef<HTMLDivElement>(null);
  // Focus moves in the same task that shows the dialog: keys typed as soon as it appears land
  // in its first field, not in whatever opened it.
  useLayoutEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const first = box.current?.querySelector<HTMLElement>(FOCUSABLE);
    first?.focus();
    return () => opener?.isConnected && opener.focus();
  }, []);
  const onKeyDown = (e: KeyboardEvent): void => {
    // An editor inside may take Escape first (closing its completion list); then the dialog stays.
    if (e.key === 'Escape' && !e.defaultPrevented) {
      e.stopPropagation();
      onClose();
      return;
    }
    if (e.key !== 'Tab' || !box.current) return;
    const items = [...box.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !(el as HTMLButtonElement).disabled && el.offsetParent !== null);
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (e.shiftKey && document.activeElement === first) {
      last.focus();
      e.preventDefault();
    } else if (!e.shiftKey && document.activeElement === last) {
      first.focus();
      e.preventDefault();
    }
  };
  return (
    <div class="dialog-backdrop">
      <div class={`dialog ${className ?? ''}`} role="dialog" aria-modal="true" aria-labelledby={titleId} ref={box} onKeyDown={onKeyDown}>
        {children}
      </div>
    </div>
  );
}
