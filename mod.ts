/**
 * rxprompt: the registry in the middle of an agent harness that assembles
 * one deterministic system prompt per model step.
 *
 * Plugins register ordered sections, tool-schema providers, prompt variables
 * and assembly listeners through registrars, each registration owned by a
 * lifetime and removed by the exact disposer it returned. Per-agent scopes
 * shadow global registrations for one agent only.
 * {@linkcode SystemPrompt.assemble} produces one deterministic assembly per
 * step, {@linkcode renderPrompt} interpolates its `{{variables}}` strictly,
 * and `change$` / `watch()` let reactive consumers re-render on change.
 *
 * @example Assemble and render
 * ```ts
 * import { renderPrompt, SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt<{ scope?: string }>({
 *   persona: "You are a coding agent working in {{cwd}}.",
 * });
 * prompt.variable("cwd", () => "/work/app");
 * const shell = prompt.fork();
 * shell.section({ name: "tools:shell", order: 110, text: "Prefer short commands." });
 * shell.tools(() => ({
 *   schemas: [{ name: "shell", description: "Run a command.", parameters: { type: "object" } }],
 * }));
 *
 * const assembly = await prompt.assemble();
 * console.log(renderPrompt(assembly));
 * console.log(assembly.tools.map((tool) => tool.name)); // ["shell"]
 *
 * await shell.dispose(); // the shell plugin unloads: its section and tool go
 * await prompt.dispose();
 * ```
 *
 * @module
 */

export {
  SystemPromptError,
  type SystemPromptErrorCode,
  type SystemPromptErrorOptions,
} from "./src/errors.ts";
export type {
  AssembleContext,
  AssembledSection,
  AssembleListener,
  AssembleOptions,
  PromptAssembly,
  PromptRuntimeContext,
  PromptSection,
  ScopeKey,
  Stability,
  StabilityOptions,
  TokenBudget,
  ToolDeferral,
  ToolGate,
  ToolProvider,
  ToolProviderResult,
  ToolSchema,
  ToolsOptions,
  VariableProvider,
} from "./src/types.ts";
export type { PromptChange, PromptView } from "./src/change_types.ts";
export type {
  PersonaConfig,
  SystemPromptConfig,
} from "./src/system_prompt_config.ts";
export type {
  Disposer,
  EffectBody,
  Teardown,
} from "./src/lifetime/lifetime.ts";
export { renderPrompt, renderRuntimeContext } from "./src/render/prompt.ts";
export {
  runtimeContextUpdate,
  type RuntimeContextUpdateOptions,
} from "./src/render/runtime_context_update.ts";
export type {
  ExplainOptions,
  Origin,
  PromptExplanation,
  PrunedOrigin,
  SectionOrigin,
  ShadowedOrigin,
  StabilityReason,
  ToolOrigin,
  VariableOrigin,
} from "./src/explain/explanation.ts";
export { diffAssemblies, type PromptDiff } from "./src/diff/diff.ts";
export {
  type CacheFinding,
  type CacheFindingCode,
  lintCache,
  type LintCacheOptions,
} from "./src/lint/cache_lint.ts";
export {
  type PromptBlock,
  type PromptBlocksOptions,
  renderPromptBlocks,
} from "./src/render/blocks.ts";
export {
  type AssemblyTokens,
  countAssemblyTokens,
} from "./src/budget/count.ts";
export type { CountTokens } from "./src/budget/count_text.ts";
export { TOOL_ORDER_REST } from "./src/kinds/tool_order.ts";
export {
  HARNESS_IDENTITY,
  HARNESS_IDENTITY_ORDER,
  HARNESS_IDENTITY_SECTION,
  PERSONA_ORDER,
  PERSONA_SECTION,
  TOOL_GUIDANCE_ORDER,
  TOOL_GUIDANCE_ORDER_END,
} from "./src/registrar/built_ins.ts";
export type {
  Registrar,
  RegistrarOptions,
} from "./src/registrar/registrar_api.ts";
export { SystemPrompt } from "./src/system_prompt.ts";
export type {
  Compaction,
  CompactOptions,
} from "./src/conversation/compaction_types.ts";
export type {
  Awaiting,
  ChangesOption,
  Conversation,
  ConversationOptions,
  ConversationPrompt,
  OutputSettings,
  RequestOptions,
  ResumeInfo,
  ToolCall,
  ToolResultOptions,
} from "./src/conversation/types.ts";
export type {
  ConversationObserver,
  ConversationReportOptions,
  ConversationRequest,
} from "./src/conversation/observer_types.ts";
export type {
  RecordingFork,
  RecordingHeader,
  RecordingMark,
  RecordingOrigin,
  RecordingProvenance,
  RecordingStep,
} from "./src/conversation/recording.ts";
export type { ListedTool } from "./src/conversation/tool_set.ts";
export type {
  HeldSection,
  SectionChange,
} from "./src/conversation/system_changes.ts";
export {
  searchTools,
  type ToolSearchHit,
  type ToolSearchIndex,
  toolSearchIndex,
  type ToolSearchOptions,
} from "./src/shared/tool_search.ts";
