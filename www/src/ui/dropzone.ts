/**
 * The drop zone and file picker. Files dropped anywhere on the window are accepted too, so
 * that a near miss does not make the browser navigate away to the dropped file.
 */
export function setupDropZone(zone: HTMLElement, input: HTMLInputElement, onFile: (file: File) => void): void {
  const hasFiles = (event: DragEvent): boolean => event.dataTransfer?.types.includes('Files') ?? false;
  let depth = 0; // dragenter/dragleave fire for every child element

  zone.addEventListener('dragenter', (event) => {
    if (!hasFiles(event)) return;
    depth += 1;
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) zone.classList.remove('dragging');
  });

  window.addEventListener('dragover', (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault(); // required for `drop` to fire
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
  });
  window.addEventListener('drop', (event) => {
    event.preventDefault();
    depth = 0;
    zone.classList.remove('dragging');
    const file = event.dataTransfer?.files[0];
    if (file) onFile(file);
  });

  input.addEventListener('change', () => {
    const file = input.files?.[0];
    if (file) onFile(file);
    input.value = ''; // choosing the same file again should load it again
  });
}
