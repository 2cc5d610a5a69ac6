/** `app:Teig` → `Teig`: the GML readers match elements by local name, whatever prefix a producer binds. */
export function localName(qualified: string): string {
  const colon = qualified.indexOf(':');
  return colon === -1 ? qualified : qualified.slice(colon + 1);
}
