/** One blob version seen in a customer's container. */
export interface CustomerBlob {
  name: string;
  etag: string;
}

/** A version's identity: its name and ETag. */
export const versionKey = (blob: CustomerBlob): string => `${blob.name}\u0000${blob.etag}`;

/** A failure reading a customer's container, with a message safe to show (no credential, no token, no SDK dump). */
export class CustomerContainerError extends Error {
  override readonly name = "CustomerContainerError";
}
