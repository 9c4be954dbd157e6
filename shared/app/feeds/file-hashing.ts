import { createHash } from "node:crypto";
import { pipeline, Transform, type Readable } from "node:stream";

/** The hex SHA-256 of a stream's bytes, read in bounded memory. */
export async function sha256Of(stream: Readable): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Hashes a file's bytes as a reader streams them, so validating the file and naming its job take one read. */
export class HashingReader {
  private readonly hash = createHash("sha256");
  private complete = false;

  wrap(source: Readable): Readable {
    const hash = this.hash;
    const through = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        done(null, chunk);
      },
      flush: (done) => {
        this.complete = true;
        done();
      },
    });
    // A failing source fails the reader through `through`; a reader stopping early destroys both.
    return pipeline(source, through, () => undefined);
  }

  /** The hex SHA-256 of the whole file, or undefined when reading stopped before its end. */
  digest(): string | undefined {
    return this.complete ? this.hash.digest("hex") : undefined;
  }
}
