// The Responses API's tool union as a later openai release might have it: the pinned tags and one new tool.
export interface FunctionTool {
  type: 'function';
  name: string;
}
export interface WebSearchTool {
  type: 'web_search' | 'web_search_2025_08_26';
}
export interface TeleportTool {
  type: 'teleport_2026_01_01';
}
export type Tool = FunctionTool | WebSearchTool | TeleportTool;
