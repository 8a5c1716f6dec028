/**
 * Images and audio are kept as media: their bytes as they are, plus what their headers say
 * (format, MIME type, pixel size or duration), read here from the format's own header so no
 * decoder is needed. A file whose bytes do not match its extension is refused.
 */
export interface MediaInfo {
  kind: 'image' | 'audio';
  format: string;
  mime: string;
  bytes: number;
  width?: number;
  height?: number;
  duration_seconds?: number;
  channels?: number;
  sample_rate?: number;
}

const TYPES: Record<string, { kind: 'image' | 'audio'; format: string; mime: string }> = {
  '.png': { kind: 'image', format: 'png', mime: 'image/png' },
  '.jpg': { kind: 'image', format: 'jpeg', mime: 'image/jpeg' },
  '.jpeg': { kind: 'image', format: 'jpeg', mime: 'image/jpeg' },
  '.gif': { kind: 'image', format: 'gif', mime: 'image/gif' },
  '.webp': { kind: 'image', format: 'webp', mime: 'image/webp' },
  '.bmp': { kind: 'image', format: 'bmp', mime: 'image/bmp' },
  '.wav': { kind: 'audio', format: 'wav', mime: 'audio/wav' },
  '.mp3': { kind: 'audio', format: 'mp3', mime: 'audio/mpeg' },
  '.ogg': { kind: 'audio', format: 'ogg', mime: 'audio/ogg' },
  '.flac': { kind: 'audio', format: 'flac', mime: 'audio/flac' },
};

export const isMediaExtension = (ext: string) => ext in TYPES;

function jpegSize(b: Buffer): { width: number; height: number } | null {
  let p = 2;
  while (p + 9 < b.length) {
    if (b[p] !== 0xff) return null;
    const marker = b[p + 1]!;
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      p += 2;
      continue;
    }
    // SOF0..SOF15 except DHT (c4), JPG (c8) and DAC (cc) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { height: b.readUInt16BE(p + 5), width: b.readUInt16BE(p + 7) };
    p += 2 + b.readUInt16BE(p + 2);
  }
  return null;
}

function wavInfo(b: Buffer): Partial<MediaInfo> | null {
  if (b.length < 12 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') return null;
  let p = 12;
  let fmt: { channels: number; rate: number; byteRate: number } | null = null;
  while (p + 8 <= b.length) {
    const id = b.toString('latin1', p, p + 4);
    const size = b.readUInt32LE(p + 4);
    if (id === 'fmt ' && p + 24 <= b.length) fmt = { channels: b.readUInt16LE(p + 10), rate: b.readUInt32LE(p + 12), byteRate: b.readUInt32LE(p + 16) };
    if (id === 'data' && fmt) return { channels: fmt.channels, sample_rate: fmt.rate, duration_seconds: fmt.byteRate ? Math.round((size / fmt.byteRate) * 1000) / 1000 : undefined };
    p += 8 + size + (size & 1);
  }
  return fmt ? { channels: fmt.channels, sample_rate: fmt.rate } : {};
}

/** The media description of `data`, null when `ext` is not a media type; throws when the bytes are not that type. */
export function mediaInfo(ext: string, data: Buffer): MediaInfo | null {
  const t = TYPES[ext];
  if (!t) return null;
  const base: MediaInfo = { ...t, bytes: data.length };
  const bad = () => new Error(`not a valid ${t.format.toUpperCase()} file`);
  switch (t.format) {
    case 'png':
      if (data.length < 24 || data.readUInt32BE(0) !== 0x89504e47) throw bad();
      return { ...base, width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
    case 'gif':
      if (data.length < 10 || data.toString('latin1', 0, 3) !== 'GIF') throw bad();
      return { ...base, width: data.readUInt16LE(6), height: data.readUInt16LE(8) };
    case 'bmp':
      if (data.length < 26 || data.toString('latin1', 0, 2) !== 'BM') throw bad();
      return { ...base, width: data.readInt32LE(18), height: Math.abs(data.readInt32LE(22)) };
    case 'jpeg': {
      if (data.length < 4 || data[0] !== 0xff || data[1] !== 0xd8) throw bad();
      const s = jpegSize(data);
      return s ? { ...base, ...s } : base;
    }
    case 'webp': {
      if (data.length < 30 || data.toString('latin1', 0, 4) !== 'RIFF' || data.toString('latin1', 8, 12) !== 'WEBP') throw bad();
      const chunk = data.toString('latin1', 12, 16);
      if (chunk === 'VP8X') return { ...base, width: 1 + data.readUIntLE(24, 3), height: 1 + data.readUIntLE(27, 3) };
      if (chunk === 'VP8 ') return { ...base, width: data.readUInt16LE(26) & 0x3fff, height: data.readUInt16LE(28) & 0x3fff };
      if (chunk === 'VP8L') {
        const bits = data.readUInt32LE(21);
        return { ...base, width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
      }
      return base;
    }
    case 'wav': {
      const w = wavInfo(data);
      if (!w) throw bad();
      return { ...base, ...w };
    }
    case 'mp3':
      if (!(data.toString('latin1', 0, 3) === 'ID3' || (data[0] === 0xff && (data[1]! & 0xe0) === 0xe0))) throw bad();
      return base;
    case 'ogg':
      if (data.toString('latin1', 0, 4) !== 'OggS') throw bad();
      return base;
    case 'flac':
      if (data.toString('latin1', 0, 4) !== 'fLaC') throw bad();
      return base;
  }
  return base;
}

/** A Markdown description of a media file, so it can be found by what its metadata says. */
export function describeMedia(name: string, m: MediaInfo): string {
  const facts = [`${m.kind === 'image' ? 'Image' : 'Audio'}, ${m.format.toUpperCase()} (${m.mime})`, `${m.bytes} bytes`];
  if (m.width !== undefined && m.height !== undefined) facts.push(`${m.width} × ${m.height} pixels`);
  if (m.duration_seconds !== undefined) facts.push(`${m.duration_seconds} s`);
  if (m.channels !== undefined) facts.push(`${m.channels} channel${m.channels === 1 ? '' : 's'}`);
  if (m.sample_rate !== undefined) facts.push(`${m.sample_rate} Hz`);
  return `# ${name}\n\n${facts.join(', ')}.\n`;
}
