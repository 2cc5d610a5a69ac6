import type pg from 'pg';

/**
 * The table to read a source's published line records from: its own partition of
 * `source_record` where it has one (schema/1764000600000_source-record-hashes.sql and after),
 * else the partitioned table itself.
 *
 * Read through the partitioned table, a statement is planned from the partitioned table's own
 * statistics, and PostgreSQL has none: autovacuum never analyzes a partitioned table, and the
 * publish analyzes the partition it wrote (recordPublishedLines, stale-statistics.ts). So the
 * planner took the default guesses (200 distinct record keys for se-building's 398,059) and
 * chose merge joins with sorts spilled to disk and a parallel DISTINCT that sorted every key
 * again after gathering them. Read from the partition, the same statements are planned from
 * its statistics: at 0.05 × national, se-building's changed lines took 0.52 s instead of
 * 1.0 s, and counting the buildings its records name 0.46 s instead of 0.8 to 1.06 s.
 * Statements keep `source_id = $1`: the default partition holds several sources.
 *
 * Only the stage's statements read it so. From the partition's statistics the planner expects
 * almost every hash to be published already, so next to no new record: the publish's insert of
 * the new records (recordPublishedLines), planned so, took a nested loop that read the staged
 * rows once for each new record, 6.6 s instead of 0.5 s for se-building's night at 0.05 ×. The
 * stage's join of the records runs with hash joins only (withHashJoins); the publish's
 * statements still read `source_record`, whose default guesses happen to hash.
 */
export async function sourceRecordTable(client: pg.PoolClient | pg.Pool, sourceId: string): Promise<string> {
  const partition = await client.query<{ name: string }>(
    `SELECT c.oid::regclass::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'source_record'::regclass AND pg_get_expr(c.relpartbound, c.oid) = format('FOR VALUES IN (%L)', $1::text)`,
    [sourceId],
  );
  return partition.rows[0]?.name ?? 'source_record';
}
