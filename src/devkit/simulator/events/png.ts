// Real, decodable PNG images for monitor_screenshot, the size of the real ones. The service captures
// the display with ffmpeg (x11grab) and, while the PNG is above 729 KiB, captures again at half,
// quarter, … scale (kernel/kernel-images cdpmonitor/screenshot.go), so a real screenshot is a
// viewport PNG of roughly 100–729 KiB: up to ~972 KB of base64. Built from the PNG chunk layout
// (signature, IHDR, IDAT = zlib(filtered scanlines), IEND), lazily and once per process.
import { deflateSync } from 'node:zlib';

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** Encodes an 8-bit RGB image; `pixel` gives [r, g, b] for each coordinate. */
export function encodePng(
  width: number,
  height: number,
  pixel: (x: number, y: number) => [number, number, number],
): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour
  const raw = Buffer.alloc((width * 3 + 1) * height);
  let o = 0;
  for (let y = 0; y < height; y++) {
    raw[o++] = 0; // filter: none
    for (let x = 0; x < width; x++) {
      const [r, g, b] = pixel(x, y);
      raw[o++] = r;
      raw[o++] = g;
      raw[o++] = b;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The service recaptures at a smaller scale above this many raw PNG bytes. */
export const SERVICE_PNG_MAX_BYTES = 729 * 1024;

/**
 * A 1280×720 "viewport": flat page chrome (compresses to almost nothing) over a band of photo-like
 * noise `noiseRows` high (does not compress), so the PNG's size is set by the band.
 */
function viewport(noiseRows: number, tint: [number, number, number], seed: number): Buffer {
  let a = seed >>> 0;
  const noise = (): number => {
    // mulberry32, inline: the image has ~10^6 pixels.
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const [r, g, b] = tint;
  const top = 120;
  if (noiseRows === 0) return encodePng(1280, 720, () => [255, 255, 255]); // nothing painted yet
  return encodePng(1280, 720, (x, y) => {
    if (y < 64) return [r, g, b]; // header bar
    if (y >= top && y < top + noiseRows && x >= 40 && x < 1240) {
      const n = noise();
      return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff];
    }
    return x % 320 < 8 ? [230, 230, 235] : [255, 255, 255];
  });
}

let built: readonly string[] | undefined;

/**
 * Base64 viewport PNGs, in the order a session's screenshots cycle through them: a page still
 * blank (a new tab, a page before first paint: ~4 KB of base64), then about 100 KiB, 335 KiB and
 * 710 KiB (139 KB to 967 KB of base64): a text page, a page with pictures, and one just under the
 * service's downscale threshold. ~0.3 s to build, once.
 */
export function screenshotsBase64(): readonly string[] {
  built ??= (
    [
      [0, [255, 255, 255]],
      [26, [66, 133, 244]],
      [92, [52, 168, 83]],
      [198, [234, 67, 53]],
    ] as const
  ).map(([rows, tint], i) => viewport(rows, [...tint], 0x5eed + i).toString('base64'));
  return built;
}

let small: readonly string[] | undefined;

/**
 * Base64 viewport PNGs of 20–40 KB (a band of 2 to 4 noisy rows): the heavy mix's screenshots
 * (mix.ts), small enough to travel inline under the default record limit.
 */
export function smallScreenshotsBase64(): readonly string[] {
  small ??= ([2, 3, 4] as const).map((rows, i) =>
    viewport(rows, [66 + 30 * i, 133, 244 - 30 * i], 0x5ead + i).toString('base64'),
  );
  return small;
}
