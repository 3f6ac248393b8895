// Bedrock's model identifiers, as they come in a path: a catalogue name as is (`claude-sonnet-4-6`,
// `gpt-4o`, an alias), a Bedrock model id (`anthropic.claude-sonnet-4-5-20250929-v1:0`,
// `amazon.nova-pro-v1:0`, `meta.llama3-1-70b-instruct-v1:0`), a cross-region inference profile
// (`us.`, `eu.`, `apac.`, `global.`… before it) or an ARN naming either. A Bedrock id stands for the
// catalogue's model of the same name without the region, the provider, the version and the date,
// so a fixture written for `claude-sonnet-4-5` answers `us.anthropic.claude-sonnet-4-5-20250929-v1:0`.
import type { Catalogue } from '../../core/models.ts';

/** `arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-…`: the resource's id. */
const ARN = /^arn:aws[a-z-]*:bedrock:[a-z0-9-]*:\d*:[a-z-]+\/(.+)$/;

/** `[geo.]provider.name`: a geography's prefix (`us`, `eu`, `apac`, `us-gov`, `global`…), then the provider's. */
const BEDROCK_ID = /^(?:(?:[a-z]{2,4}(?:-gov)?|global)\.)?([a-z][a-z0-9]*)\.(.+)$/;

/** A version after the name: `-v1:0`, `-v2`, `-1:0` (gpt-oss), `-v0:2`, and a context variant `:200k`. */
const VERSION = /(?:-v\d+(?::\d+)?|-\d+:\d+)(?::\d+k)?$/;

/** A dated snapshot: `-20250929`. */
const DATE = /-\d{8}$/;

/** Longest identifier looked at (Bedrock's own limit on a model id or ARN is 2048). */
const MAX_ID_CHARS = 2048;

/**
 * The catalogue's name for the model `id` identifies, or undefined when it names none: the id itself
 * when the catalogue knows it (an alias may name a Bedrock id or an application inference profile's),
 * else its Bedrock form read as above, undated first, then dated, then with the provider in front
 * (`deepseek.r1-v1:0` is `deepseek-r1`).
 */
export function bedrockModel(catalogue: Catalogue, id: string): string | undefined {
  if (id.length > MAX_ID_CHARS) return undefined;
  if (catalogue.get(id)) return id;
  const resource = ARN.exec(id)?.[1];
  if (resource !== undefined && catalogue.get(resource)) return resource;
  const parts = BEDROCK_ID.exec(resource ?? id);
  if (!parts) return undefined;
  const [, provider, versioned] = parts;
  const dated = versioned.replace(VERSION, '');
  const undated = dated.replace(DATE, '');
  return [undated, dated, `${provider}-${undated}`].find((name) => catalogue.get(name) !== undefined);
}
