/** The input file itself is unusable (truncated zip, wrong header, wrong encoding): the run fails with this message. */
export class InputFormatError extends Error {
  override name = 'InputFormatError';
}
