/**
 * Previous and Next over a list read a page at a time. `pages` holds the cursors of the pages read so far, the
 * shown one last (null: the first page); `next` is the shown page's `next_cursor`. Nothing shows for a list
 * that fits one page.
 */
export function Pager({ label, pages, next, onPages }: { label: string; pages: (string | null)[]; next: string | null; onPages: (pages: (string | null)[]) => void }) {
  if (pages.length <= 1 && !next) return null;
  return (
    <nav className="actions" aria-label={label}>
      <button type="button" className="secondary" disabled={pages.length <= 1} onClick={() => onPages(pages.slice(0, -1))}>
        Previous page
      </button>
      <button type="button" className="secondary" disabled={!next} onClick={() => onPages([...pages, next])}>
        Next page
      </button>
    </nav>
  );
}
