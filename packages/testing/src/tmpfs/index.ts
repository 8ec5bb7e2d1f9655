/**
 * A small tmpfs for disk-full fault tests: a data directory on a file system of a known size that a test
 * can fill (a filler file, up to a given amount of free space) during load and empty again.
 * Mounting needs root (and, in a container, the right to mount); `tmpfsUnavailable` says why not (CI runs
 * as root, so CI=true makes that an error).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { open, rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTempDir, type TempDir } from '../process/index.js';

let probed: string | undefined | null = null;

/** Undefined when a tmpfs can be mounted here (tried once, with a 1 MiB one); otherwise why not. */
export function tmpfsUnavailable(): string | undefined {
  if (probed === null) probed = probeMount();
  if (probed && process.env['CI'] === 'true')
    throw new Error(`CI=true but the disk-full fault tests cannot run: ${probed}`);
  return probed;
}

function probeMount(): string | undefined {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const dir = mkdtempSync(join(tmpdir(), 'anchor-tmpfs-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'pipe' });
    execFileSync('umount', [dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `mount -t tmpfs failed: ${String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim()}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
