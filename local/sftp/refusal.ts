import { utils } from "ssh2";

/** SFTP status codes (SSH_FX_*), for backends to refuse with. */
export const STATUS = utils.sftp.STATUS_CODE;

/**
 * A request an SFTP backend refuses: the status the client is answered with, and the message when
 * there is one. Thrown by a backend; the subsystem (subsystem.ts) turns it into the status reply.
 */
export class SftpRefusal extends Error {
  constructor(
    readonly code: number,
    /** What the client reads; undefined: the status alone (the client names it). */
    readonly reply?: string,
  ) {
    super(reply ?? `SFTP status ${code}`);
    this.name = "SftpRefusal";
  }
}
