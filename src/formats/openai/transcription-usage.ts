// What a transcription is billed, as the service reports it: whisper by the second (`duration`), the
// GPT-4o transcribe models by tokens (the audio's, the prompt's, the transcript's). One rule for
// /v1/audio/transcriptions and the realtime sessions' input transcription.
import { countTokens } from '../../core/tokens.ts';
import { AUDIO_TOKENS_PER_SECOND } from '../../core/synthesize/audio.ts';

export function transcriptionUsage(model: string, seconds: number, prompt: string | undefined, text: string) {
  if (model.startsWith('whisper')) return { type: 'duration', seconds: Math.ceil(seconds) };
  const audioTokens = Math.ceil(seconds * AUDIO_TOKENS_PER_SECOND);
  const promptTokens = prompt ? countTokens(prompt) : 0;
  const outputTokens = countTokens(text);
  return {
    type: 'tokens',
    input_tokens: audioTokens + promptTokens,
    input_token_details: { text_tokens: promptTokens, audio_tokens: audioTokens },
    output_tokens: outputTokens,
    total_tokens: audioTokens + promptTokens + outputTokens,
  };
}
