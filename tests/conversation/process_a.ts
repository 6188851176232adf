/**
 * Process A of the save-and-resume process tests (run by
 * `resume_deno_test.ts`, not a test itself): a conversation with tool
 * rounds, a runtime-context change, a live tool added and a person pause,
 * recorded line by line to the file `Deno.args[0]`. Mode `Deno.args[1]`:
 * `"clean"` prints the body it would send next and exits; `"crash"` dies
 * while appending a line, with a tool round open.
 */
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import { message, toolUse } from "./helpers.ts";
import { processAgent, RESTART } from "./process_agent.ts";

const [path, mode] = Deno.args;
const agent = processAgent("Monday");
const conv = anthropicConversation(agent.prompt, {
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  onRecord: (line) => Deno.writeTextFileSync(path, line, { append: true }),
});
conv.user("The site is down.");
await conv.request();
conv.record(message([toolUse("t1", "read_file")]));
conv.toolResult("t1", "error: out of memory");
agent.day = "Monday, 23:50";
agent.live.next({ schemas: [RESTART] });
await conv.request(undefined, { awaiting: "person" });
conv.record(message([{ type: "text", text: "Restart the service?" }]));
conv.user("Yes.");
await conv.request();
conv.record(
  message([toolUse("t2", "shell"), toolUse("t3", "restart_service")]),
);
if (mode === "crash") {
  Deno.writeTextFileSync(path, '{"step":4,"at":', { append: true });
  Deno.kill(Deno.pid, "SIGKILL");
}
conv.toolResult("t3", "restarted");
conv.toolResult("t2", "ok");
console.log(JSON.stringify(await conv.request()));
await agent.prompt.dispose();
