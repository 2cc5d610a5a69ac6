/** Rows a publish (of a source or a derived dataset) changed in the live tables. */
export interface ChangeCounts {
  inserted: number;
  updated: number;
  deleted: number;
}
