// What a GPT image model's picture costs in output tokens: the images endpoints' and the Responses
// image_generation tool's.

/** Output image tokens per picture of the GPT image models, by quality and size (OpenAI's published table). */
const OUTPUT_TOKENS: Record<string, Record<string, number>> = {
  low: { '1024x1024': 272, '1024x1536': 408, '1536x1024': 400 },
  medium: { '1024x1024': 1056, '1024x1536': 1584, '1536x1024': 1568 },
  high: { '1024x1024': 4160, '1024x1536': 6240, '1536x1024': 6208 },
};

/** A picture's output tokens: the table's figure, else one token per 250 pixels. */
export function gptImageTokens(quality: string, size: string, width: number, height: number): number {
  return OUTPUT_TOKENS[quality]?.[size] ?? Math.ceil((width * height) / 250);
}
