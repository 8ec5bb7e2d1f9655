/**
 * A small tmpfs for disk-full fault tests: a data directory on a file system of a known size that a test
 * can fill (a filler file, up to a given amount of free space) during load and empty again.
 * Mounting needs root; `tmpfsUnavailable` says why not (CI runs as root, so CI=true makes that an error).
 */
import { execFileSync } from 'node:child_process';
import { open, rm, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, type TempDir } from '../process/index.js';

/** Undefined when a tmpfs can be mounted here; otherwise why not. */
export function tmpfsUnavailable(): string | undefined {
  const reason = process.getuid?.() !== 0 ? 'mounting a tmpfs needs root' : undefined;
  if (reason && process.env['CI'] === 'true')
    throw new Error(`CI=true but the disk-full fault tests cannot run: ${reason}`);
  return reason;
}

const CHUNK = 1024 * 1024;

export class SmallDisk {
  private constructor(
    private readonly mountPoint: TempDir,
    readonly sizeBytes: number,
  ) {}

  /** Mounts a tmpfs of `sizeBytes` on a new temporary directory. */
  static async mount(sizeBytes: number): Promise<SmallDisk> {
    const dir = await makeTempDir('anchor-small-disk-');
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir.path], { stdio: 'pipe' });
    } catch (error) {
      await dir.remove();
      throw error;
    }
    return new SmallDisk(dir, sizeBytes);
  }

  /** A directory on the disk. */
  get path(): string {
    return this.mountPoint.path;
  }

  private get fillerPath(): string {
    return join(this.path, 'filler');
  }

  async freeBytes(): Promise<number> {
    const fs = await statfs(this.path);
    return fs.bavail * fs.bsize;
  }

  /**
   * Writes to the filler file until at most `leaveBytes` are free (0: until the file system refuses).
   * Others writing at the same time may take some of the space first; that is the point.
   */
  async fill(leaveBytes = 0): Promise<void> {
    const file = await open(this.fillerPath, 'a');
    const zeros = Buffer.alloc(CHUNK);
    try {
      for (;;) {
        const room = (await this.freeBytes()) - leaveBytes;
        if (room <= 0) return;
        try {
          await file.write(zeros, 0, Math.min(CHUNK, room));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return;
          throw error;
        }
      }
    } finally {
      await file.close();
    }
  }

  /** Deletes the filler: the space comes back. */
  async free(): Promise<void> {
    await rm(this.fillerPath, { force: true });
  }

  /** Unmounts (lazily, so a process still holding files there does not block it) and removes the directory. */
  async remove(): Promise<void> {
    try {
      execFileSync('umount', ['-l', this.path], { stdio: 'pipe' });
    } finally {
      await this.mountPoint.remove();
    }
  }
}
