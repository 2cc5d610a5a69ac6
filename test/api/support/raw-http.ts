import net from 'node:net';

/**
 * HTTP/1.1 over a bare TCP socket, for what fetch cannot send (a NUL or a lone CR in a header,
 * an unknown method, a raw 0xFF in the URL, Transfer-Encoding with Content-Length) and for a
 * client that sends its whole body before it reads anything.
 */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export class RawConnection {
  private readonly socket: net.Socket;
  private received = Buffer.alloc(0);
  private closed = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake?.();
    });
    socket.on('error', (error) => {
      this.failure = error;
      this.wake?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /**
   * Writes the bytes. With `readAfter`, the socket reads nothing until every byte is written (and
   * flushed to the kernel): the client of a server that closes before reading the body gets a
   * reset or EPIPE instead of the answer.
   */
  async send(bytes: string | Buffer, options: { readAfter?: boolean } = {}): Promise<void> {
    if (options.readAfter) this.socket.pause();
    await new Promise<void>((resolve, reject) => this.socket.write(bytes, (error) => (error ? reject(error) : resolve())));
    if (options.readAfter) this.socket.resume();
  }

  /** The next response (by Content-Length, else until the server closes); rejects on a reset or after timeoutMs. */
  async response(timeoutMs = 10_000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.failure) throw this.failure;
      if (this.closed) throw new Error(`connection closed after ${this.received.length} bytes: ${JSON.stringify(this.received.toString('latin1').slice(0, 200))}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no complete response within ${timeoutMs} ms: ${JSON.stringify(this.received.toString('latin1').slice(0, 200))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private parse(): RawResponse | undefined {
    const end = this.received.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = this.received.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = headers['content-length'] !== undefined ? Number(headers['content-length']) : undefined;
    const available = this.received.length - end - 4;
    if (length === undefined ? !this.closed : available < length) return undefined;
    const size = length ?? available;
    const body = this.received.subarray(end + 4, end + 4 + size).toString('utf8');
    this.received = this.received.subarray(end + 4 + size);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }
}

/** One request on a fresh connection, and its response. */
export async function rawExchange(port: number, bytes: string | Buffer, options: { readAfter?: boolean; timeoutMs?: number } = {}): Promise<RawResponse> {
  const connection = await RawConnection.open(port);
  try {
    await connection.send(bytes, options);
    return await connection.response(options.timeoutMs);
  } finally {
    connection.close();
  }
}
