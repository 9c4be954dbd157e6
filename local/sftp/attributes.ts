import type { Attributes } from "ssh2";

const FILE_MODE = 0o100644;
const DIR_MODE = 0o040755;

/** The inbox as a stat shows it: a directory. */
export const dirAttrs = (): Attributes => ({ mode: DIR_MODE, uid: 0, gid: 0, size: 0, atime: 0, mtime: 0 });
/** A file in the inbox as a stat or listing shows it: `-rw-r--r--`. */
export const fileAttrs = (size: number, modified: Date | undefined): Attributes => {
  const seconds = Math.floor((modified?.getTime() ?? Date.now()) / 1000);
  return { mode: FILE_MODE, uid: 0, gid: 0, size, atime: seconds, mtime: seconds };
};
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
/** A listing line as `ls -l` prints it. */
export function longname(name: string, size: number, modified: Date): string {
  const time = `${MONTHS[modified.getUTCMonth()]} ${String(modified.getUTCDate()).padStart(2)} ${String(modified.getUTCHours()).padStart(2, "0")}:${String(modified.getUTCMinutes()).padStart(2, "0")}`;
  return `-rw-r--r--    1 feed     feed     ${String(size).padStart(12)} ${time} ${name}`;
}
