import proto from '@temporalio/proto';
import type { History } from '@temporalio/common/lib/proto-utils.js';

/**
 * A workflow history to JSON and back, losslessly, by the generated proto classes
 * (protobufjs's object form: 64-bit numbers and bytes as strings, enums by name). Not
 * @temporalio/common's historyToJSON/historyFromJSON: in this install @temporalio/common and
 * @temporalio/proto each carry their own protobufjs, and its protojson refuses the other copy's
 * types ("type must be a Type").
 */
const { History: HistoryMessage } = proto.temporal.api.history.v1;

export function historyToJsonText(history: History): string {
  const object = HistoryMessage.toObject(HistoryMessage.fromObject(history), { longs: String, enums: String, bytes: String, json: true });
  return `${JSON.stringify(object, null, 1)}\n`;
}

/** A History the replayer takes as it is (event ids as Long, as fetched from the server). */
export function historyFromJsonText(text: string): History {
  return HistoryMessage.fromObject(JSON.parse(text));
}
