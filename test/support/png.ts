/**
 * Reads one pixel of a PNG (8-bit RGB or RGBA, not interlaced: what Chrome's screenshots are), with node's
 * zlib and the five PNG row filters — enough to tell which page a screenshot shows by its colour.
 */
import { inflateSync } from "node:zlib";

export interface Png {
  width: number;
  height: number;
  /** [r, g, b] at (x, y). */
  rgb(x: number, y: number): [number, number, number];
}

export function decodePng(file: Buffer): Png {
  if (file.subarray(0, 8).toString("hex") !== "89504e470d0a1a0a") throw new Error("not a PNG");
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  for (let off = 8; off < file.length; ) {
    const len = file.readUInt32BE(off);
    const type = file.toString("latin1", off + 4, off + 8);
    const data = file.subarray(off + 8, off + 8 + len);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [depth, color, , , interlace] = [data[8], data[9], data[10], data[11], data[12]];
      if (depth !== 8 || (color !== 2 && color !== 6) || interlace !== 0) throw new Error(`unsupported PNG (depth ${depth}, colour type ${color}, interlace ${interlace})`);
      channels = color === 6 ? 4 : 3;
    } else if (type === "IDAT") idat.push(data);
    off += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const px = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let i = 0; i < stride; i++) {
      const x = raw[y * (stride + 1) + 1 + i]!;
      const a = i >= channels ? px[y * stride + i - channels]! : 0;
      const b = y > 0 ? px[(y - 1) * stride + i]! : 0;
      const c = i >= channels && y > 0 ? px[(y - 1) * stride + i - channels]! : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][filter];
      if (predictor === undefined) throw new Error(`bad PNG filter ${filter}`);
      px[y * stride + i] = (x + predictor) & 0xff;
    }
  }
  return {
    width,
    height,
    rgb: (x, y) => {
      const o = y * stride + x * channels;
      return [px[o]!, px[o + 1]!, px[o + 2]!];
    },
  };
}
