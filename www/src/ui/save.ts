/**
 * Offers bytes or text as a file download (a temporary object URL and a hidden link), without
 * any network request.
 */
import { h } from './dom';

export function saveFile(name: string, data: Uint8Array | string, type: string): void {
  const part = typeof data === 'string' ? data : (data as Uint8Array<ArrayBuffer>);
  const url = URL.createObjectURL(new Blob([part], { type }));
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 60_000);
}
