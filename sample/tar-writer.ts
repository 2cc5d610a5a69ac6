/**
 * Writes a tar of files already on disk, the way the pipeline's bundles are read
 * (sources/formats/bundle.ts): a register that publishes several files reaches the pipeline as
 * one artifact. Members are streamed from their files (sizes known from `stat`), with fixed
 * times, modes and owners, so the same members always give the same bytes.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';

const FIXED_MTIME = new Date(Date.UTC(2024, 0, 1));

export async function writeTar(path: string, members: { name: string; file: string }[]): Promise<void> {
  const pack = tar.pack();
  const written = pipeline(pack, createWriteStream(path));
  for (const member of members) {
    const { size } = await stat(member.file);
    const entry = pack.entry({ name: member.name, size, mtime: FIXED_MTIME, mode: 0o644, uid: 0, gid: 0, uname: '', gname: '' });
    await pipeline(createReadStream(member.file), entry);
  }
  pack.finalize();
  await written;
}
