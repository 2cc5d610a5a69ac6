/**
 * The comparables of each subject, as one SQL query: for every subject a LATERAL
 * nearest-neighbour search on the sales' GiST index (`ORDER BY geom <-> point LIMIT n`, an
 * index scan that stops after n rows, not a scan of all sales), then
 * - the radius: the smallest step of RADIUS_STEPS_M that holds MIN_COMPARABLES of those nearest
 *   sales (500 m in a town, widening to 25 km in the countryside; 25 km when fewer exist);
 * - the ranking: within the radius, the MAX_COMPARABLES most similar (comparable_similarity,
 *   schema/1763900300000_comparable-similarity.sql), ties by distance, then transaction id.
 * A subject never has a sale of its own property as a comparable.
 *
 * The nearest CANDIDATE_POOL sales are the pool the radius and the ranking look at: in a dense
 * town more sales than that can lie within 500 m, and only the nearest of them are weighed.
 * The KNN is ordered by distance alone (a tie-breaker would turn the index scan into a sort of
 * every sale); sales at exactly the same distance at the pool's edge come in index order, which
 * is the same on every run because the sales table is written in transaction-id order.
 */
export const RADIUS_STEPS_M = [500, 1_000, 2_000, 5_000, 10_000, 25_000] as const;
export const MIN_COMPARABLES = 5;
export const MAX_COMPARABLES = 10;
export const CANDIDATE_POOL = 32;

export interface NearestSalesQuery {
  /** A relation with cadastre_id, geom, size_m2, property_type, building_type, built_year and `subjectKey`. */
  subjects: string;
  /** The column naming a subject in the result (`subject_id`). */
  subjectKey: string;
  /** The sales table searched (its GiST index on geom is what makes this fast). */
  candidates: string;
  /** An extra condition on the candidate `n` (and the subject `s`), e.g. training sales only. */
  candidateWhere?: string;
}

/** Rows: subject_id, transaction_id, distance_m, price_per_m2, currency, similarity, radius_m. */
export function nearestSalesSql(query: NearestSalesQuery): string {
  const widest = RADIUS_STEPS_M[RADIUS_STEPS_M.length - 1];
  // The smallest step holding MIN_COMPARABLES (NULL when the pool has fewer: the widest).
  const radius = `CASE ${RADIUS_STEPS_M.slice(0, -1).map((step) => `WHEN w.enough_within_m <= ${step} THEN ${step}`).join(' ')} ELSE ${widest} END`;
  return `
    SELECT s.${query.subjectKey} AS subject_id, c.transaction_id, c.distance_m, c.price_per_m2, c.currency, c.similarity, c.radius_m
    FROM ${query.subjects} s
    CROSS JOIN LATERAL (
      SELECT w.transaction_id, w.distance_m, w.price_per_m2, w.currency, w.similarity, r.radius_m
      FROM (
        SELECT pool.*,
               comparable_similarity(pool.distance_m, s.size_m2, pool.size_m2, s.property_type, pool.property_type,
                                     s.building_type, pool.building_type, s.built_year, pool.built_year) AS similarity,
               nth_value(pool.distance_m, ${MIN_COMPARABLES}) OVER (ORDER BY pool.distance_m, pool.transaction_id
                 ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS enough_within_m
        FROM (
          SELECT n.transaction_id, n.price_per_m2, n.currency, n.size_m2, n.property_type, n.building_type, n.built_year,
                 ST_Distance(n.geom, s.geom) AS distance_m
          FROM ${query.candidates} n
          WHERE n.cadastre_id <> s.cadastre_id${query.candidateWhere ? ` AND (${query.candidateWhere})` : ''}
          ORDER BY n.geom <-> s.geom
          LIMIT ${CANDIDATE_POOL}
        ) pool
      ) w
      CROSS JOIN LATERAL (SELECT ${radius} AS radius_m) r
      WHERE w.distance_m <= r.radius_m
      ORDER BY w.similarity DESC, w.distance_m, w.transaction_id
      LIMIT ${MAX_COMPARABLES}
    ) c`;
}
