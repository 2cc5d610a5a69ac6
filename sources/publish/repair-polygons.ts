import type { RepairResult, StagingContext } from '../source-adapter.js';

/**
 * Invalid polygons (self-intersections, spikes) are repaired with ST_MakeValid when that
 * leaves an area, and quarantined with PostGIS's reason when it does not. Each repair is also
 * written to the rejects table (disposition `repaired`) so nothing changes silently.
 * Polygon staging tables carry `geom` and a streamed `area_m2`; a repaired polygon's area is
 * cleared so the publish measures the repaired shape.
 */
export async function repairInvalidPolygons({ client, stagingTable, runId, sourceId }: StagingContext): Promise<RepairResult> {
  const result = await client.query<{ repaired: number; rejected: number }>(
    `WITH bad AS (
       SELECT src_pos, ST_IsValidReason(geom) AS reason, left(ST_AsText(geom), 2000) AS raw
       FROM ${stagingTable} WHERE NOT ST_IsValid(geom)
     ),
     fixed AS (
       UPDATE ${stagingTable} st
       SET geom = ST_Multi(ST_CollectionExtract(ST_MakeValid(st.geom), 3)), area_m2 = NULL
       FROM bad WHERE st.src_pos = bad.src_pos
       RETURNING st.src_pos, ST_IsEmpty(st.geom) AS emptied
     ),
     logged AS (
       INSERT INTO source_reject (run_id, source_id, position, disposition, reason, raw)
       SELECT $1, $2, bad.src_pos,
              CASE WHEN fixed.emptied THEN 'rejected' ELSE 'repaired' END,
              'invalid polygon: ' || bad.reason ||
                CASE WHEN fixed.emptied THEN ' (no area left after repair)' ELSE ' (repaired with ST_MakeValid)' END,
              bad.raw
       FROM bad JOIN fixed USING (src_pos)
       RETURNING disposition
     )
     SELECT count(*) FILTER (WHERE disposition = 'repaired') AS repaired,
            count(*) FILTER (WHERE disposition = 'rejected') AS rejected
     FROM logged`,
    [runId, sourceId],
  );
  // The CTE's UPDATE is not visible to a sibling DELETE; drop emptied rows in a second statement.
  await client.query(`DELETE FROM ${stagingTable} WHERE ST_IsEmpty(geom)`);
  return result.rows[0];
}
