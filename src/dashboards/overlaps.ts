import { GRID_COLUMNS, type GridCell } from './types.js';

/**
 * Finding overlapping grid cells without comparing every pair. Cells are swept top to bottom
 * (by y); each grid column keeps a stack of the cells that cover it, most recent on top. When
 * a cell starts, any cell still covering one of its columns at that row overlaps it. A cell that
 * ended above the sweep is popped when it reaches the top of a stack, and it never covers a later
 * row again, so every cell is pushed and popped at most once per column: the sweep costs a sort
 * plus (columns per cell) steps per cell, where comparing pairs cost 50 million steps for
 * 10,000 cells.
 */

/**
 * COLUMN_SLOTS bounds the columns a cell can cover: x is at most 23 and w at most 24 (the
 * schema's bounds), so a cell that overflows the grid (its own error) still reaches column 46 at
 * most, and its overlaps there are found too.
 */
const COLUMN_SLOTS = 2 * GRID_COLUMNS - 1;

/** CellOverlap names a cell that overlaps a cell starting above it (or at the same row, earlier in the list). */
export interface CellOverlap {
  /** index is the position of the overlapping cell in its section. */
  index: number;
  /** other is the position of one cell it overlaps. */
  other: number;
}

/**
 * findOverlaps reports each cell that overlaps a cell starting above it once, naming one such
 * cell, in list order. A stack of cells that all overlap reports every cell but the first, so the
 * number of findings grows with the cells, not with the pairs.
 */
export function findOverlaps(cells: readonly GridCell[]): CellOverlap[] {
  const order = cells.map((_, index) => index);
  order.sort((a, b) => cells[a].y - cells[b].y || a - b);
  const covering: number[][] = Array.from({ length: COLUMN_SLOTS }, () => []);
  const found: CellOverlap[] = [];
  for (const index of order) {
    const cell = cells[index];
    const first = Math.max(0, cell.x);
    const last = Math.min(cell.x + cell.w, COLUMN_SLOTS);
    let other = -1;
    for (let column = first; column < last; column++) {
      const stack = covering[column];
      while (stack.length > 0 && bottomOf(cells[stack[stack.length - 1]]) <= cell.y) stack.pop();
      if (stack.length > 0) {
        const top = stack[stack.length - 1];
        if (other < 0 || top < other) other = top;
      }
      stack.push(index);
    }
    if (other >= 0) found.push({ index, other });
  }
  return found.sort((a, b) => a.index - b.index);
}

function bottomOf(cell: GridCell): number {
  return cell.y + cell.h;
}
