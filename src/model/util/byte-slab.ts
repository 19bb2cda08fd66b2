/**
 * Buffers for answers made per request, carved one after the other from 256 KB slabs. Node's own
 * pool (`Buffer.allocUnsafe`) holds 8 KB, a new ArrayBuffer every three 2 KB answers; each is
 * allocated, tracked and freed as external memory, which costs more than writing the answer. A
 * slab lives until the last answer cut from it has been sent and collected.
 */
const SLAB_BYTES = 256 * 1024;

export class ByteSlab {
  private slab = new ArrayBuffer(0);
  private used = 0;

  /** `size` bytes of uninitialised memory: the caller writes every one of them. */
  take(size: number): Buffer {
    if (size > SLAB_BYTES / 8) return Buffer.allocUnsafe(size);
    if (this.used + size > this.slab.byteLength) {
      this.slab = new ArrayBuffer(SLAB_BYTES);
      this.used = 0;
    }
    const bytes = Buffer.from(this.slab, this.used, size);
    // Next piece 8-byte aligned, as Node's pool does.
    this.used = (this.used + size + 7) & ~7;
    return bytes;
  }
}
