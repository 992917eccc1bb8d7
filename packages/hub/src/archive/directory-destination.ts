import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { attempt, checkObjectName, checkPrefix, type Destination, type StoredObject } from './destination.ts';

/**
 * Objects as files under a directory. A file is written under a temporary name beside its final one
 * (`.<name>.<random>.partial`, which no object name can be), flushed to disk, renamed into place, and its
 * directory flushed: after a crash the object is there whole or not at all. A temporary file a crash left
 * behind is never listed.
 */
export class DirectoryDestination implements Destination {
  readonly url: string;
  private readonly root: string;

  constructor(root: string) {
    this.root = root;
    this.url = pathToFileURL(root).href;
  }

  async put(name: string, bytes: Uint8Array): Promise<void> {
    const path = this.path(name);
    return attempt(this.url, `write ${name}`, async () => {
      const directory = dirname(path);
      const created = await mkdir(directory, { recursive: true });
      // A new directory is durable once the one holding it is flushed.
      if (created !== undefined) for (let d = directory; d !== dirname(created); d = dirname(d)) await syncDirectory(dirname(d));
      const temporary = join(directory, `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`);
      try {
        const file = await open(temporary, 'wx');
        try {
          await file.writeFile(bytes);
          await file.sync();
        } finally {
          await file.close();
        }
        await rename(temporary, path);
      } catch (e) {
        await unlink(temporary).catch(() => undefined);
        throw e;
      }
      await syncDirectory(directory);
    });
  }

  async get(name: string): Promise<Buffer | undefined> {
    const path = this.path(name);
    return attempt(this.url, `read ${name}`, () => readFile(path).catch(absentAsUndefined));
  }

  async getStart(name: string, bytes: number): Promise<Buffer | undefined> {
    const path = this.path(name);
    return attempt(this.url, `read ${name}`, async () => {
      const file = await open(path, 'r').catch(absentAsUndefined);
      if (file === undefined) return undefined;
      try {
        const buffer = Buffer.alloc(bytes);
        const { bytesRead } = await file.read(buffer, 0, bytes, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await file.close();
      }
    });
  }

  async head(name: string): Promise<StoredObject | undefined> {
    const path = this.path(name);
    return attempt(this.url, `look up ${name}`, async () => {
      const s = await stat(path).catch(absentAsUndefined);
      return s?.isFile() ? { name, size: s.size } : undefined;
    });
  }

  async list(prefix: string): Promise<StoredObject[]> {
    checkPrefix(prefix);
    // Walk only the directory the prefix's whole segments name.
    const start = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    return attempt(this.url, `list ${prefix || 'objects'}`, async () => {
      const found: StoredObject[] = [];
      await this.walk(join(this.root, start), prefix, found);
      return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    });
  }

  async delete(name: string): Promise<void> {
    const path = this.path(name);
    return attempt(this.url, `delete ${name}`, async () => {
      await unlink(path).catch(absentAsUndefined);
      await syncDirectory(dirname(path)).catch(absentAsUndefined);
    });
  }

  private path(name: string): string {
    return join(this.root, checkObjectName(name));
  }

  private async walk(directory: string, prefix: string, found: StoredObject[]): Promise<void> {
    const entries = (await readdir(directory, { withFileTypes: true }).catch(absentAsUndefined)) ?? [];
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(directory, entry.name);
      const name = relative(this.root, path).split(sep).join('/');
      if (entry.isDirectory()) {
        if (name.startsWith(prefix) || prefix.startsWith(`${name}/`)) await this.walk(path, prefix, found);
      } else if (entry.isFile() && name.startsWith(prefix)) {
        found.push({ name, size: (await stat(path)).size });
      }
    }
  }
}

/** A rename or unlink is durable once the directory holding it is flushed. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function absentAsUndefined(e: NodeJS.ErrnoException): undefined {
  if (e.code === 'ENOENT') return undefined;
  throw e;
}
