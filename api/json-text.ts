/**
 * `objectJson` (a JSON object's text, as PostgreSQL rendered it) with one more member at its end:
 * the API's answers rendered in SQL lack only what the process knows, such as the links that
 * carry its base URL.
 */
export function withMember(objectJson: string, name: string, value: unknown): string {
  const end = objectJson.lastIndexOf('}');
  if (!objectJson.startsWith('{') || end < 0 || objectJson.slice(end + 1).trim() !== '') throw new Error(`not a JSON object: ${objectJson.slice(0, 40)}`);
  const empty = objectJson.slice(1, end).trim() === '';
  return `${objectJson.slice(0, end)}${empty ? '' : ','}${JSON.stringify(name)}:${JSON.stringify(value)}}`;
}
