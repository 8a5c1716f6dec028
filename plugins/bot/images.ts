/**
 * Chat images (spec Part 3 "Bot chat", Limits): at most four; an HTTPS URL is checked for shape
 * only (never fetched: ctx must not become a way into the network it runs in); an inline `data:`
 * URL must be base64 JPEG, PNG, GIF or WebP of at most 10 MiB decoded whose bytes start with that
 * type's signature. SVG (script in an image) and local paths are refused.
 */
import { invalidArgument } from 'ctx/plugin';

export const MAX_IMAGES = 4;
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
/** Base64 of the largest image plus a header: longer strings are refused before any decoding. */
export const MAX_IMAGE_URL_CHARS = Math.ceil(MAX_IMAGE_BYTES / 3) * 4 + 256;

export interface ChatImage {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

const SIGNATURES: Record<string, (b: Buffer) => boolean> = {
  'image/jpeg': (b) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/png': (b) => b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/gif': (b) => b.length >= 6 && (b.subarray(0, 6).toString('latin1') === 'GIF87a' || b.subarray(0, 6).toString('latin1') === 'GIF89a'),
  'image/webp': (b) => b.length >= 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};
const ALIASES: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg' };
const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Checks every image; throws 400 INVALID_ARGUMENT naming `images[i]` on the first bad one. */
export function checkImages(images: ChatImage[]): void {
  if (images.length > MAX_IMAGES) throw invalidArgument(`at most ${MAX_IMAGES} images per message, got ${images.length}`, { field: 'images' });
  images.forEach((img, i) => checkImage(img.image_url.url, `images[${i}].image_url.url`));
}

function checkImage(url: string, field: string): void {
  if (/^data:/i.test(url)) return checkInline(url, field);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw invalidArgument(`image URL must be an https:// URL or a data: URL; local file paths are not accepted: ${url.slice(0, 100)}`, { field });
  }
  if (u.protocol !== 'https:') throw invalidArgument(`image URL must use https (or be an inline data: URL), got ${u.protocol}`, { field });
  if (!u.hostname) throw invalidArgument('image URL has no host', { field });
  if (u.username || u.password) throw invalidArgument('image URL must not carry credentials', { field });
}

function checkInline(url: string, field: string): void {
  const m = DATA_URL.exec(url.length > MAX_IMAGE_URL_CHARS ? url.slice(0, 512) : url);
  if (url.length > MAX_IMAGE_URL_CHARS) throw invalidArgument(`inline image is larger than ${MAX_IMAGE_BYTES} bytes`, { field, limit: MAX_IMAGE_BYTES });
  if (!m) throw invalidArgument('malformed data: URL', { field });
  const declared = m[1]!.trim().toLowerCase();
  const mime = ALIASES[declared] ?? declared;
  if (mime === 'image/svg+xml' || mime.startsWith('image/svg')) throw invalidArgument('inline SVG images are not accepted', { field });
  const sig = SIGNATURES[mime];
  if (!sig) throw invalidArgument(`inline image type must be image/jpeg, image/png, image/gif or image/webp, got ${declared || 'none'}`, { field });
  if (!m[2]!.split(';').includes('base64')) throw invalidArgument('inline image must be base64-encoded (data:<type>;base64,...)', { field });
  const b64 = m[3]!.replace(/\s+/g, '');
  if (!BASE64.test(b64) || b64.length % 4 === 1) throw invalidArgument('inline image is not valid base64', { field });
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length === 0) throw invalidArgument('inline image is empty', { field });
  if (bytes.length > MAX_IMAGE_BYTES) throw invalidArgument(`inline image is larger than ${MAX_IMAGE_BYTES} bytes`, { field, limit: MAX_IMAGE_BYTES });
  if (!sig(bytes)) throw invalidArgument(`inline image bytes do not match its declared type ${mime}`, { field });
}
