import { useRef, useState } from 'react';

/**
 * Copies `text` to the clipboard. The Clipboard API exists only in secure contexts (https, localhost); a Hub
 * reached over plain http elsewhere gets the older copy of a selection, which works there.
 */
async function copy(text: string, element: HTMLElement): Promise<boolean> {
  if (window.isSecureContext && navigator.clipboard) {
    await navigator.clipboard.writeText(text);
    return true;
  }
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
  return document.execCommand('copy');
}

/** An identifier shown in full that copies itself when clicked, and says so. */
export function CopyText({ text, what }: { text: string; what: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const shown = useRef<HTMLSpanElement>(null);
  const onClick = () => {
    copy(text, shown.current!).then(
      (ok) => setCopied(ok ? 'yes' : 'no'),
      () => setCopied('no'),
    );
  };
  return (
    <span className="copy-text">
      <button type="button" className="link mono" title={`Copy the ${what}`} onClick={onClick} onBlur={() => setCopied(null)}>
        <span ref={shown}>{text}</span>
        <span className="visually-hidden">: copy the {what}</span>
      </button>{' '}
      <span role="status" className="hint">
        {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Select it and copy: the browser refused' : ''}
      </span>
    </span>
  );
}
