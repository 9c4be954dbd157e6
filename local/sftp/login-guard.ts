/**
 * Backoff for password logins of the SFTP drop, per remote address: after a failed password from an
 * address, its next password attempt (for any login name) is checked only once a delay has passed
 * (the first failure's delay, doubling with each further failure, up to a maximum). Attempts arriving
 * within the delay queue one delay apart; one that would wait longer than the maximum is refused
 * without checking the password. An address's failures are forgotten a quarter of an hour after its
 * last one. Kept in this process's memory: the local runtime is one process (in Azure the storage
 * account's SFTP endpoint is the one that guards its logins).
 *
 * Nothing is keyed on the login name: whoever knows a feed's login name could then delay or lock out
 * the provider's own logins from anywhere (eight wrong passwords from one address kept the real
 * provider's login from another waiting 27 s, past common client timeouts). A key on name and address
 * together would add nothing, as the address's own failures are at least as many. So a guesser is
 * slowed at its address, whatever names it tries, and the provider elsewhere is not slowed at all;
 * the passwords are long random secrets, so guesses spread over many addresses gain nothing that matters.
 */
export interface LoginGuardSettings {
  /** Seconds before an address may try again after its first failed password. */
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
/** Addresses remembered at most: a flood from many addresses must not grow memory without end. */
const MAX_KEYS = 10_000;

export class LoginGuard {
  private readonly failures = new Map<string, Failures>();

  constructor(
    private readonly settings: LoginGuardSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Ms to wait before checking a password attempt from this address; undefined when it is refused unchecked. */
  admit(address: string): number | undefined {
    const now = this.now();
    const f = this.known(address);
    if (f === undefined || f.nextSlot <= now) return 0;
    const at = f.nextSlot;
    if (at - now > this.settings.maxBackoffSeconds * 1000) return undefined;
    // Within a delay, attempts queue one delay apart (a burst over many connections gains nothing).
    f.nextSlot = at + this.delayMs(f.count);
    return at - now;
  }

  /** Records a failed password from this address; answers its failure count. */
  failed(address: string): number {
    const now = this.now();
    const key = `address ${address}`;
    const f = this.failures.get(key) ?? { count: 0, nextSlot: now, last: now };
    this.failures.delete(key); // re-inserted last: the map's order is oldest first
    f.count++;
    f.last = now;
    f.nextSlot = Math.max(f.nextSlot, now + this.delayMs(f.count));
    this.failures.set(key, f);
    this.prune(now);
    return f.count;
  }

  /** How many addresses are remembered. */
  get remembered(): number {
    return this.failures.size;
  }

  private known(address: string): Failures | undefined {
    const key = `address ${address}`;
    const f = this.failures.get(key);
    if (f !== undefined && this.now() - f.last > FORGET_MS) {
      this.failures.delete(key);
      return undefined;
    }
    return f;
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
