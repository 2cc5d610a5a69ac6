import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';

/** Writes a tar bundle the way `tar cf` would, from in-memory members (test fixtures). */
export async function writeTarBundle(filePath: string, members: { name: string; content: string | Buffer }[]): Promise<string> {
  const pack = tar.pack();
  const written = pipeline(pack, createWriteStream(filePath));
  for (const member of members) {
    const content = typeof member.content === 'string' ? Buffer.from(member.content, 'utf8') : member.content;
    await new Promise<void>((resolve, reject) => pack.entry({ name: member.name, size: content.length }, content, (error) => (error ? reject(error) : resolve())));
  }
  pack.finalize();
  await written;
  return filePath;
}
