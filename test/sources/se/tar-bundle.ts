import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { ZipFile } from 'yazl';

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

/** A zip of in-memory files, as a register's download would be. */
export async function zipOf(files: { name: string; content: Buffer }[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const file of files) zip.addBuffer(file.content, file.name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
