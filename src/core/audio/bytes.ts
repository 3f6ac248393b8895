// Byte helpers the audio writers share.

/** A Vorbis comment structure (FLAC's comment block, the body of Ogg's OpusTags): vendor, then `KEY=value` lines. */
export function vorbisComment(vendor: string, comments: string[]): Uint8Array {
  const enc = new TextEncoder();
  const parts = [vendor, ...comments].map((s) => enc.encode(s));
  const out = new Uint8Array(4 + parts.reduce((n, p) => n + 4 + p.length, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  parts.forEach((p, i) => {
    view.setUint32(at, p.length, true);
    out.set(p, at + 4);
    at += 4 + p.length;
    if (i === 0) {
      view.setUint32(at, comments.length, true);
      at += 4;
    }
  });
  return out;
}
