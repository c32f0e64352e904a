/** Jest global teardown of the `topology` project: stops its processes and drops its schema and keys. */
import type { Topology } from './topology';

export default async function teardown(): Promise<void> {
  await (globalThis as { topology?: Topology }).topology?.destroy();
}
