/** One blob version seen in a customer's container. */
export interface CustomerBlob {
  name: string;
  etag: string;
}

/** A version's identity: its name and ETag. */
export const versionKey = (blob: CustomerBlob): string => `${blob.name}\u0000${blob.etag}`;

/** A failure reading a customer's container, with a message safe to show (no credential, no token, no SDK dump). */
export class CustomerContainerError extends Error {
  override readonly name: string = "CustomerContainerError";
}

/**
 * The container answered about one blob with a refusal (an archived blob, one the grant does not
 * cover): that blob cannot be copied now, the others may be.
 */
export class CustomerBlobError extends CustomerContainerError {
  override readonly name = "CustomerBlobError";
}
