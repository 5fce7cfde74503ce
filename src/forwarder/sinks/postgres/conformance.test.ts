// The PostgreSQL sink passes the remote sink conformance suite against a real server: a fresh database per scenario,
// "down" being the server itself stopped (pg_ctl stop) and "up" started again on the same port.
import { sharedPostgres } from '../../../shared/testing/postgres.js';
import { remoteSinkConformance, SHIP_CHILD } from '../remote/conformance.js';
import { builtModule } from '../../../../test/support/cli-build.js';
import { createPool } from './pool.js';
import { SHIPPED_TABLES } from './schema.js';
import assert from 'node:assert/strict';
import { fleetRows, toolCallsDrift, verdictDrift } from './testing/rows.js';
import { postgresTarget } from './url.js';

remoteSinkConformance('postgres', {
  // The crash case's child from the tests' build of src/, as the bin's processes run (decision 0095).
  shipChild: () => builtModule(SHIP_CHILD),
  fresh: async () => {
    const pg = await sharedPostgres();
    const url = pg.createDatabase();
    let stopped = false;
    return {
      url,
      read: async (origin) => {
        const target = postgresTarget(url);
        const pool = createPool(target, { max: 1 });
        try {
          const out: Record<string, Record<string, unknown>[]> = {};
          const exists = (await pool.query('SELECT to_regclass($1) AS t', ['hermetic.sessions'])).rows[0].t !== null;
          for (const t of SHIPPED_TABLES) out[t.name] = exists ? await fleetRows(pool, target.schema, t, origin.machineId) : [];
          // At every step, the tool calls the fleet keeps from its parts are their grouping (decision 0099).
          if (exists) assert.deepEqual(await toolCallsDrift(pool, target.schema), { extra: [], missing: [] }, 'tool_calls kept from parts');
          // And each terminal result's stored verdict is the fleet's rule of its text (decision 0167).
          if (exists) assert.deepEqual(await verdictDrift(pool, target.schema), [], 'parts.failed kept by the rule');
          return out;
        } finally {
          await pool.end();
        }
      },
      down: async () => {
        pg.stop('fast');
        stopped = true;
      },
      up: async () => {
        pg.start();
        stopped = false;
      },
      cleanup: async () => {
        if (stopped) pg.start();
      },
    };
  },
});
