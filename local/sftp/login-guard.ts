/**
 * Backoff for password logins of the SFTP drop, per login name and per remote address: after a failed
 * password, the next password attempt for that name or from that address is checked only once a delay
 * has passed (the first failure's delay, doubling with each further failure, up to a maximum).
 * Attempts arriving within the delay queue one delay apart; one that would wait longer than the
 * maximum is refused without checking the password. A success clears the login name's failures; the
 * failures of a name or address are forgotten a quarter of an hour after the last one. Kept in this process's memory: the local runtime is one process (in
 * Azure the storage account's SFTP endpoint is the one that guards its logins).
 */
export interface LoginGuardSettings {
  /** Seconds before a login name or address may try again after its first failed password. */
  backoffSeconds: number;
  /** The longest delay, and the longest an attempt waits in the queue before it is refused unchecked. */
  maxBackoffSeconds: number;
}

interface Failures {
  count: number;
  /** When the next attempt may be checked (ms). */
  nextSlot: number;
  last: number;
}

const FORGET_MS = 15 * 60 * 1000;
/** Names and addresses remembered at most: a flood of made-up names must not grow memory without end. */
const MAX_KEYS = 10_000;

export class LoginGuard {
  private readonly failures = new Map<string, Failures>();

  constructor(
    private readonly settings: LoginGuardSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Ms to wait before checking this password attempt; undefined when it is refused unchecked. */
  admit(login: string, address: string): number | undefined {
    const now = this.now();
    const keys = this.known(login, address);
    const at = Math.max(now, ...keys.map((k) => k.nextSlot));
    if (at - now > this.settings.maxBackoffSeconds * 1000) return undefined;
    // Within a delay, attempts queue one delay apart (a burst over many connections gains nothing).
    if (at > now) for (const k of keys) k.nextSlot = Math.max(k.nextSlot, at + this.delayMs(k.count));
    return at - now;
  }

  /** Records a failed password; answers the larger failure count of the name and the address. */
  failed(login: string, address: string): number {
    const now = this.now();
    let count = 0;
    for (const key of [`login ${login}`, `address ${address}`]) {
      const f = this.failures.get(key) ?? { count: 0, nextSlot: now, last: now };
      this.failures.delete(key); // re-inserted last: the map's order is oldest first
      f.count++;
      f.last = now;
      f.nextSlot = Math.max(f.nextSlot, now + this.delayMs(f.count));
      this.failures.set(key, f);
      count = Math.max(count, f.count);
    }
    this.prune(now);
    return count;
  }

  /** How many names and addresses are remembered. */
  get remembered(): number {
    return this.failures.size;
  }

  succeeded(login: string): void {
    this.failures.delete(`login ${login}`);
  }

  private known(login: string, address: string): Failures[] {
    const now = this.now();
    const found: Failures[] = [];
    for (const key of [`login ${login}`, `address ${address}`]) {
      const f = this.failures.get(key);
      if (f === undefined) continue;
      if (now - f.last > FORGET_MS) this.failures.delete(key);
      else found.push(f);
    }
    return found;
  }

  private delayMs(count: number): number {
    if (count <= 0) return 0;
    return Math.min(
      this.settings.backoffSeconds * 1000 * 2 ** Math.min(count - 1, 30),
      this.settings.maxBackoffSeconds * 1000,
    );
  }

  private prune(now: number): void {
    for (const [key, f] of this.failures) {
      if (this.failures.size <= MAX_KEYS && now - f.last <= FORGET_MS) break;
      this.failures.delete(key);
    }
  }
}
