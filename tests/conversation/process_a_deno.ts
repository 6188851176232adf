/**
 * Process A of the save-and-resume process tests (run by
 * `resume_deno_test.ts`, not a test itself): a conversation with tool
 * rounds, a runtime-context change, a live tool added and a person pause,
 * every request sent through the real SDK client of form `Deno.args[2]` to
 * a scripted loopback server, recorded line by line to the file
 * `Deno.args[0]`. Mode `Deno.args[1]`: `"clean"` sends the request it would
 * send next too and prints the body the server received; `"crash"` prints
 * the body of its last request and dies while appending a line, with that
 * request's tool round open.
 */
import { withScript } from "../adapters/loopback.ts";
import { processAgent, RESTART } from "./process_agent.ts";
import { type FormName, MONDAY, SDK_FORMS } from "./resume_forms_deno.ts";

const [path, mode, name] = Deno.args;
const form = SDK_FORMS[name as FormName];
if (form === undefined) throw new Error(`unknown form ${name}`);

/** Writes all of `text` to stdout before the process may be killed. */
function print(text: string): void {
  const bytes = new TextEncoder().encode(`${text}\n`);
  let written = 0;
  while (written < bytes.length) {
    written += Deno.stdout.writeSync(bytes.subarray(written));
  }
}

const replies = [
  form.calls([{ id: "t1", name: "read_file" }]),
  form.text("Restart the service?"),
  form.calls([
    { id: "t2", name: "shell" },
    { id: "t3", name: "restart_service" },
  ]),
  form.text("Back up."),
];
const agent = processAgent("Monday");
await withScript(replies, async (baseURL, received) => {
  const conv = form.start(agent.prompt, {
    onRecord: (line) => Deno.writeTextFileSync(path, line, { append: true }),
    clock: () => MONDAY,
  });
  conv.user("The site is down.");
  conv.record(await conv.send(baseURL));
  conv.toolResult("t1", "error: out of memory");
  agent.day = "Monday, 23:50";
  agent.live.next({ schemas: [RESTART] });
  conv.record(await conv.send(baseURL, "person"));
  conv.user("Yes.");
  conv.record(await conv.send(baseURL));
  if (mode === "crash") {
    print(received[2]);
    Deno.writeTextFileSync(path, '{"step":4,"at":', { append: true });
    Deno.kill(Deno.pid, "SIGKILL");
  }
  conv.toolResult("t3", "restarted");
  conv.toolResult("t2", "ok");
  await conv.send(baseURL);
  print(received[3]);
});
await agent.prompt.dispose();
