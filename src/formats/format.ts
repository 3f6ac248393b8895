// What every vendor's format object (formats/<vendor>/format.ts) provides, and the objects by name.
import type { FormatEdge } from '../pipeline/call.ts';
import type { FormatName } from './names.ts';

export interface VendorFormat extends FormatEdge {
  name: FormatName;
  /** The headers that carry an API key to the real service, in this vendor's way (record mode's `verify`). */
  credentialHeaders(key: string): Record<string, string>;
}
