import { Pool } from 'pg';
import { Topology } from './topology';

test('a topology whose process cannot start stops what it started and drops its schema before it throws', async () => {
  // The API instance refuses its configuration and exits; the chain node and the projector start.
  const topology = new Topology({
    apis: 1,
    executors: 0,
    projectors: 1,
    env: { RATE_LIMIT_PER_MINUTE: 'lots' },
  });
  const pool = new Pool({ connectionString: topology.env.EVENTSTORE_URL, max: 1 });
  try {
    await expect(topology.start()).rejects.toThrow(/api-1 exited with 2/);

    expect(topology.procs.map((p) => p.name).sort()).toEqual(['api-1', 'chain', 'projector-1']);
    for (const p of topology.procs) expect(p.child!.exitCode ?? p.child!.signalCode).not.toBeNull();
    const { rows } = await pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [topology.schema]);
    expect(rows).toEqual([]);
  } finally {
    await pool.end();
    await topology.destroy(); // when the start left something behind
  }
});
