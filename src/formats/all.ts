// The format objects by name, for code that holds only a format's name (a fixture's match.format).
import type { VendorFormat } from './format.ts';
import type { FormatName } from './names.ts';
import { anthropicFormat } from './anthropic/format.ts';
import { bedrockFormat } from './bedrock/format.ts';
import { geminiFormat } from './gemini/format.ts';
import { openaiFormat } from './openai/format.ts';

export const FORMATS: Readonly<Record<FormatName, VendorFormat>> = {
  openai: openaiFormat,
  anthropic: anthropicFormat,
  gemini: geminiFormat,
  bedrock: bedrockFormat,
};

/** What answers a request no format claims (an unknown route) or a fixture naming none: OpenAI's, the gateway's primary format under /v1. */
export const FALLBACK_FORMAT: VendorFormat = openaiFormat;
