// The fleet's terminal programs named again (decision 0152). Each machine's forwarder ships its calls' programs as its
// own dataset named them, and records with every batch the rules it names by (`progress.program_rules`). When a
// forwarder opens the fleet store, the machines whose names are by older rules — or by none: rows shipped before fleet
// schema version 10 — are named again here, from the arguments the fleet holds, by this Hermetic's rules: a machine
// retired long ago too. A machine still running an older Hermetic records its older rules with its next batch, and
// the next newer forwarder to open the store names it again. A machine with newer rules is left as it is.
import type { PoolClient } from 'pg';
import { redactSensitiveText } from '../../../shared/redact/index.js';
import { PROGRAM_RULES, programOfArgs, TERMINAL_TOOL } from '../../dataset/program.js';
import { quoteName as q } from '../../../shared/sql-name.js';

/**
 * A name as a machine ships it: masked as every text leaving a machine is (remote/redact-row.ts), so a name read from
 * the fleet's masked arguments is what the machine would have sent for them.
 */
const shipped = (program: string) => redactSensitiveText(program) ?? program;

/** Calls read, named and written back per statement. */
const CHUNK = 5000;

/**
 * Names again the terminal calls of every machine whose `progress.program_rules` is older than `rules` (or unknown),
 * each machine in a transaction of its own that holds its progress row first (as a batch of that machine does, so the
 * two take turns), and writes only the names that change; returns the machines named. `name`, `rules` and the
 * number of calls read at a time (`pageSize`) are this Hermetic's unless a test gives others.
 */
export async function nameFleetPrograms(client: PoolClient, schema: string, name: (args: unknown) => string = programOfArgs, rules: number = PROGRAM_RULES, pageSize: number = CHUNK): Promise<string[]> {
  const s = q(schema);
  const stale = await client.query<{ machine_id: string }>(`SELECT machine_id FROM ${s}.progress WHERE program_rules IS NULL OR program_rules < $1 ORDER BY machine_id`, [rules]);
  const named: string[] = [];
  for (const { machine_id: machine } of stale.rows) {
    await client.query('BEGIN');
    try {
      const held = await client.query(`SELECT program_rules FROM ${s}.progress WHERE machine_id = $1 FOR UPDATE`, [machine]);
      const now = held.rows[0]?.program_rules;
      // Another forwarder named it while this one waited, or the machine has gone.
      if (held.rows.length === 0 || (now !== null && Number(now) >= rules)) {
        await client.query('COMMIT');
        continue;
      }
      // A page of calls at a time, by key (a machine may hold millions): memory stays one page whatever it holds.
      let after: [string, string, string] = ['', '', ''];
      for (;;) {
        const page = await client.query<{ store: string; session_id: string; part_id: string; tool_args: string | null; program: string | null }>(
          `SELECT store, session_id, part_id, tool_args, program FROM ${s}.parts
            WHERE machine_id = $1 AND tool_name = '${TERMINAL_TOOL}' AND part_type = 'tool_call' AND (store, session_id, part_id) > ($2, $3, $4)
            ORDER BY store, session_id, part_id LIMIT $5`, [machine, ...after, pageSize]);
        if (page.rows.length === 0) break;
        const last = page.rows[page.rows.length - 1]!;
        after = [last.store, last.session_id, last.part_id];
        const changed = page.rows.map((r) => ({ ...r, named: shipped(name(r.tool_args)) })).filter((r) => r.named !== r.program);
        if (changed.length === 0) continue;
        await client.query(`UPDATE ${s}.parts p SET program = n.program FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS n(store, session_id, part_id, program)
          WHERE p.machine_id = $1 AND p.store = n.store AND p.session_id = n.session_id AND p.part_id = n.part_id`,
        [machine, changed.map((r) => r.store), changed.map((r) => r.session_id), changed.map((r) => r.part_id), changed.map((r) => r.named)]);
      }
      await client.query(`UPDATE ${s}.progress SET program_rules = $2 WHERE machine_id = $1`, [machine, rules]);
      await client.query('COMMIT');
      named.push(machine);
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }
  return named;
}
