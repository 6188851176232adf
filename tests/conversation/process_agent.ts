/**
 * The agent of the save-and-resume process tests: the same registry in
 * process A (`process_a_deno.ts`) and in the test that resumes it. `day` is its
 * runtime context; `live` adds a tool from a live source.
 */
import { BehaviorSubject } from "rxjs";
import {
  SystemPrompt,
  type ToolProviderResult,
  type ToolSchema,
} from "../../mod.ts";
import { schema } from "./helpers.ts";

/** The registry and the knobs a session turns. */
export interface ProcessAgent {
  readonly prompt: SystemPrompt;
  readonly live: BehaviorSubject<ToolProviderResult>;
  day: string;
}

/** A coding agent with read_file and shell, a date and a live tool source. */
export function processAgent(day: string): ProcessAgent {
  const prompt = new SystemPrompt({ persona: "You are an on-call agent." });
  const live = new BehaviorSubject<ToolProviderResult>({ schemas: [] });
  const agent: ProcessAgent = { prompt, live, day };
  prompt.tools(() => ({ schemas: [schema("read_file"), schema("shell")] }));
  prompt.tools(live.asObservable());
  prompt.runtimeContext({
    name: "date",
    order: 0,
    text: () => `Today is ${agent.day}.`,
  });
  return agent;
}

/** The tool the live source adds during the session. */
export const RESTART: ToolSchema = schema("restart_service");
