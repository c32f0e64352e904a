/**
 * Tamper evidence. Every event is chained to the one before it in its stream:
 *
 *   content(e) = SHA-256( RFC 8785 canonical JSON of { id, type, data, metadata } )
 *   link(e)    = SHA-256( link(previous event of the stream) ‖ content(e) )
 *
 * with 32 zero bytes before a stream's first hashed event. The writer computes `content` (it holds
 * the event as it will be stored); the adapter computes `link` where the stream's revision is
 * assigned, so concurrent appends to one stream still chain in revision order. Editing an event's
 * content breaks its own link; deleting or inserting one breaks the next link or leaves a gap in the
 * revisions. Events written before hashing existed carry no link: a stream is verified from its
 * first hashed event (docs/audit.md).
 */
import { hash } from 'node:crypto';
import { canonicalJson } from '../domain/canonical-json';

export { canonicalJson };

export const GENESIS_LINK: Buffer = Buffer.alloc(32);

/** What is hashed of an event: everything the log stores of it but its place. */
export interface HashedContent {
  id: string;
  type: string;
  data: unknown;
  metadata: unknown;
}

export const contentHash = (e: HashedContent): Buffer =>
  hash('sha256', canonicalJson({ id: e.id, type: e.type, data: e.data, metadata: e.metadata }), 'buffer');

export const linkHash = (previous: Buffer, content: Buffer): Buffer =>
  hash('sha256', Buffer.concat([previous, content]), 'buffer');
