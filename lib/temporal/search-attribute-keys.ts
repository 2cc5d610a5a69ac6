import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attributes that let a data engineer filter runs in the Temporal UI. */
export const SOURCE_KEY = defineSearchAttributeKey('NordpropSource', SearchAttributeType.KEYWORD);
export const COUNTRY_KEY = defineSearchAttributeKey('NordpropCountry', SearchAttributeType.KEYWORD);
export const RUN_ID_KEY = defineSearchAttributeKey('NordpropRunId', SearchAttributeType.KEYWORD);

/** A run's outcome once it ends (succeeded, partial, failed): last night's partial run is found by it. */
export const OUTCOME_KEY = defineSearchAttributeKey('NordpropOutcome', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [SOURCE_KEY, COUNTRY_KEY, RUN_ID_KEY, OUTCOME_KEY];
