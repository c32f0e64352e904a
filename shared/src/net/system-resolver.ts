/**
 * The system resolver (getaddrinfo), apart from the address guard: the guard's rules are pure and the
 * application checks webhook URLs with them, while asking a name server is I/O, which the process's
 * wiring hands in (a test hands its own).
 */
import { lookup } from 'node:dns/promises';
import type { Resolver } from './address-guard';

/** Every address of `host`, IPv4 and IPv6, in the resolver's order. */
export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
