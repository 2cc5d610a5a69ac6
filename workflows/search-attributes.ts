import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attributes that let a data engineer filter runs in the Temporal UI. */
export const SOURCE_KEY = defineSearchAttributeKey('NordpropSource', SearchAttributeType.KEYWORD);
export const COUNTRY_KEY = defineSearchAttributeKey('NordpropCountry', SearchAttributeType.KEYWORD);
export const RUN_ID_KEY = defineSearchAttributeKey('NordpropRunId', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [SOURCE_KEY, COUNTRY_KEY, RUN_ID_KEY];
