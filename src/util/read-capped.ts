/**
 * Reads a web stream to its end, keeping at most `maxBytes`: one byte more and the stream is cancelled and
 * `tooLarge()` thrown, so a sender cannot make us hold more than the limit (request bodies, fetched pages,
 * DevTools answers).
 */
export async function readCapped(body: ReadableStream<Uint8Array> | null | undefined, maxBytes: number, tooLarge: () => Error): Promise<Buffer<ArrayBuffer>> {
  if (!body) return Buffer.alloc(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      void reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
