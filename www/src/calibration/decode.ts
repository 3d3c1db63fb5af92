/**
 * Image decoding in the worker: the browser's own decoders (createImageBitmap) resize the image
 * to the model input's W×H (stretched; no crop, no aspect-ratio padding) and an OffscreenCanvas
 * hands back RGBA bytes. Browser-only; the e2e test covers it.
 */
export async function decodeImage(file: Blob, width: number, height: number): Promise<Uint8ClampedArray> {
  const bitmap = await createImageBitmap(file, {
    resizeWidth: width,
    resizeHeight: height,
    resizeQuality: 'high',
    premultiplyAlpha: 'none',
    colorSpaceConversion: 'none',
  });
  try {
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2D canvas context in this worker');
    context.drawImage(bitmap, 0, 0);
    return context.getImageData(0, 0, width, height).data;
  } finally {
    bitmap.close();
  }
}
