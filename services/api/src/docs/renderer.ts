/**
 * The reference pages' renderer: Scalar's standalone browser bundle (@scalar/api-reference, pinned in
 * services/api/package.json), served from node_modules. It is 3.5 MB, 1 MB gzipped: read and
 * compressed once, on the first request (off the event loop), then kept; revalidated by its ETag.
 */
import type { RequestHandler } from 'express';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

export const RENDERER_URL = '/docs/assets/api-reference.js';
/** The bundle's file (the package exports this path). */
const FILE = require.resolve('@scalar/api-reference/browser/standalone.js');

interface Bundle {
  plain: Buffer;
  gzipped: Buffer;
  etag: string;
}

let bundle: Promise<Bundle> | undefined;

async function load(): Promise<Bundle> {
  const plain = await readFile(FILE);
  const gzipped = await promisify(gzip)(plain);
  return { plain, gzipped, etag: `"${createHash('sha256').update(plain).digest('base64url')}"` };
}

export const serveRenderer: RequestHandler = async (req, res) => {
  const { plain, gzipped, etag } = await (bundle ??= load().catch((err: unknown) => {
    bundle = undefined; // tried again on the next request
    throw err;
  }));
  res.setHeader('etag', etag);
  res.setHeader('cache-control', 'public, max-age=3600');
  res.setHeader('vary', 'accept-encoding');
  if (req.header('if-none-match') === etag) return void res.status(304).end();
  const zipped = req.acceptsEncodings('gzip', 'identity') === 'gzip';
  if (zipped) res.setHeader('content-encoding', 'gzip');
  res.type('js').send(zipped ? gzipped : plain);
};
