/**
 * How many uploads may be open at once, per login and in all: each holds up to a block buffer and the
 * writes waiting behind it (see upload.ts), so the caps bound the SFTP drop's memory whatever its
 * clients do.
 */
export class UploadSlots {
  private total = 0;
  private readonly byLogin = new Map<string, number>();

  constructor(private readonly limits: { perLogin: number; total: number }) {}

  /** Takes a slot for `login`; undefined when one is free, else why not. */
  take(login: string): string | undefined {
    const mine = this.byLogin.get(login) ?? 0;
    if (mine >= this.limits.perLogin)
      return `this login has ${mine} uploads open (at most ${this.limits.perLogin}): close one first`;
    if (this.total >= this.limits.total)
      return `the server has ${this.total} uploads open (at most ${this.limits.total}): try again shortly`;
    this.byLogin.set(login, mine + 1);
    this.total++;
    return undefined;
  }

  release(login: string): void {
    const mine = this.byLogin.get(login) ?? 0;
    if (mine <= 0) return;
    if (mine === 1) this.byLogin.delete(login);
    else this.byLogin.set(login, mine - 1);
    this.total--;
  }
}
