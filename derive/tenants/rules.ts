/**
 * The match rules, tried in this order for each company address that no earlier rule matched.
 * A rule that finds register addresses on more than one property for the same address (at its
 * best distance) leaves it ambiguous: no tenant rather than a guess.
 */
export type Confidence = 'HIGH' | 'MEDIUM' | 'LOW';

export interface MatchRule {
  id: string;
  confidence: Confidence;
  /** SQL over the company address `i` and the register address `r` (both prepared by compute.ts). */
  condition: string;
  /** Ranks candidates within the rule, lower is better (a street-name distance). */
  distance: string;
  /** Why it earns its confidence, for the docs and the audit column. */
  why: string;
}

const sameNumber = 'r.house_number = i.house_number';
const samePostal = 'r.postal_code = i.postal_code';
/**
 * Edits between the street names, the fewer of: the names as written (`Månegta` is one edit from
 * `Månegata`) and with their endings cut (`Storgt` and `Storgatan` are both `storg`).
 */
const edits = 'least(levenshtein(i.street_key, r.street_key), levenshtein(i.street_name, r.street_name))';
/** One edit for names up to 11 letters, two beyond: a dropped, doubled or swapped letter. */
const fewEdits = `${edits} <= CASE WHEN length(i.street_name) >= 12 THEN 2 ELSE 1 END`;

export const MATCH_RULES: MatchRule[] = [
  {
    id: 'CADASTRE_ADDRESS',
    confidence: 'HIGH',
    condition: 'r.cadastre_id = i.cadastre_ref',
    distance: '0',
    why: 'a Norwegian matrikkel address (gnr/bnr in the company\'s municipality) names a property that has addresses in the register',
  },
  {
    id: 'EXACT',
    confidence: 'HIGH',
    condition: `r.street_key = i.street_key AND ${sameNumber} AND r.letter = i.letter AND ${samePostal}`,
    distance: '0',
    why: 'street name (normalized), house number, letter and postal code all agree',
  },
  {
    id: 'STREET_SPELLING',
    confidence: 'HIGH',
    condition: `${samePostal} AND ${sameNumber} AND r.letter = i.letter AND ${fewEdits}`,
    distance: edits,
    why: 'a one-letter typo in the street name (two in a long name), with number, letter and postal code agreeing and no other street that close',
  },
  {
    id: 'LETTER_MISSING',
    confidence: 'MEDIUM',
    condition: `r.street_key = i.street_key AND ${sameNumber} AND ${samePostal} AND (i.letter = '' OR r.letter = '')`,
    distance: '0',
    why: 'the house letter is missing on one side (12 for 12 B, or 12 B where the register has only 12)',
  },
  {
    id: 'POSTAL_CODE_DIFFERS',
    confidence: 'MEDIUM',
    condition: `r.street_key = i.street_key AND ${sameNumber} AND r.letter = i.letter AND r.postal_code <> i.postal_code AND r.municipality_code = i.municipality_code AND i.municipality_stated`,
    distance: '0',
    why: 'street, number and letter agree in the municipality the business register states, under another postal code',
  },
  {
    id: 'SPELLING_AND_POSTAL_CODE',
    confidence: 'LOW',
    condition: `r.municipality_code = i.municipality_code AND i.municipality_stated AND ${sameNumber} AND r.letter = i.letter AND r.postal_code <> i.postal_code AND ${fewEdits}`,
    distance: edits,
    why: 'a typo in the street name and another postal code of the municipality the business register states',
  },
  {
    id: 'POSTAL_REGION_DIFFERS',
    confidence: 'LOW',
    condition: `r.street_key = i.street_key AND ${sameNumber} AND r.letter = i.letter AND r.postal_code <> i.postal_code AND r.municipality_code = i.municipality_code AND NOT i.municipality_stated`,
    distance: '0',
    why: 'street, number and letter agree under another postal code, in the municipality the written postal code lies in (a Swedish business address states none, and a wrong postal code may point to the same street name in another town)',
  },
  {
    id: 'FUZZY',
    confidence: 'LOW',
    condition: `${samePostal} AND ${sameNumber} AND similarity(i.street_name, r.street_name) >= 0.5 AND ${edits} <= CASE WHEN length(i.street_name) >= 10 THEN 3 ELSE 2 END`,
    distance: edits,
    why: 'same postal code and number, a street name that is only similar (trigram similarity ≥ 0.5 and two edits, three in names of 10 letters or more), the letter may differ',
  },
];
