/**
 * moveFocusByArrow moves focus to the next (ArrowDown) or previous (ArrowUp) element matching
 * `selector` inside the handler's element, wrapping around, so pickers and menus can be used
 * from the keyboard. Returns true when it handled the key.
 */
export function moveFocusByArrow(event: KeyboardEvent, selector: string): boolean {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return false;
  const items = [...(event.currentTarget as HTMLElement).querySelectorAll<HTMLElement>(selector)];
  if (items.length === 0) return false;
  const at = items.indexOf(document.activeElement as HTMLElement);
  const step = event.key === 'ArrowDown' ? 1 : -1;
  items[(at + step + items.length) % items.length].focus();
  event.preventDefault();
  return true;
}
