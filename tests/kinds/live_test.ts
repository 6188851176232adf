/**
 * Live values (SPEC 7.8): Observable-valued sections, variables and tool
 * sources, `update` changes, and `invalidate()` on every registrar, with
 * real RxJS subjects.
 */
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  BehaviorSubject,
  NEVER,
  Observable,
  ReplaySubject,
  Subject,
  type Subscription,
} from "rxjs";
import {
  type PromptChange,
  type PromptView,
  renderPrompt,
  SystemPrompt,
  type SystemPromptError,
  type ToolProviderResult,
} from "../../mod.ts";
import { macrotask, rejects } from "../assertions.ts";

const cleanups: (() => unknown)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function registry(persona = ""): SystemPrompt {
  const prompt = new SystemPrompt({ persona, includeHarnessIdentity: false });
  cleanups.push(() => prompt.dispose());
  return prompt;
}

function changes(prompt: SystemPrompt): PromptChange[] {
  const seen: PromptChange[] = [];
  const subscription = prompt.change$.subscribe((change) => seen.push(change));
  cleanups.push(() => subscription.unsubscribe());
  return seen;
}

function views(prompt: SystemPrompt, scope?: string): PromptView[] {
  const seen: PromptView[] = [];
  const subscription: Subscription = prompt.watch(
    scope === undefined ? {} : { scope },
  ).subscribe((view) => seen.push(view));
  cleanups.push(() => subscription.unsubscribe());
  return seen;
}

function prompts(seen: PromptView[]): string[] {
  return seen.map((view) => "prompt" in view ? view.prompt : "<error>");
}

function tool(name: string): ToolProviderResult {
  return {
    schemas: [{ name, description: name, parameters: { type: "object" } }],
  };
}

/** A cold source that counts its subscribers and teardowns. */
function counted<T>(subject: Subject<T>) {
  const counts = { subscribed: 0, unsubscribed: 0 };
  const source = new Observable<T>((subscriber) => {
    counts.subscribed++;
    const inner = subject.subscribe(subscriber);
    return () => {
      counts.unsubscribed++;
      inner.unsubscribe();
    };
  });
  return { source, counts };
}

describe("live values: reading", () => {
  it("reads the latest value of a section, a variable and a tool source", async () => {
    const prompt = registry("Work in {{cwd}}.");
    const cwd = new BehaviorSubject("/a");
    const note = new BehaviorSubject("first note");
    const tools = new BehaviorSubject(tool("read"));
    prompt.variable("cwd", cwd);
    prompt.section({ name: "note", order: 10, text: note });
    prompt.tools(tools);
    let assembly = await prompt.assemble();
    assert.equal(renderPrompt(assembly), "Work in /a.\n\nfirst note");
    assert.deepEqual(assembly.tools.map((t) => t.name), ["read"]);
    cwd.next("/b");
    note.next("second note");
    tools.next(tool("write"));
    assembly = await prompt.assemble();
    assert.equal(renderPrompt(assembly), "Work in /b.\n\nsecond note");
    assert.deepEqual(assembly.tools.map((t) => t.name), ["write"]);
  });

  it("reads the latest value of a runtime context, and announces updates", async () => {
    const prompt = registry();
    const git = new Subject<string>();
    prompt.runtimeContext({ name: "git", order: 1, text: git });
    const seen = changes(prompt);
    assert.deepEqual((await prompt.assemble()).runtimeContext, [
      { name: "git", order: 1, text: "" },
    ]);
    git.next("Branch main.");
    assert.deepEqual(seen, [{
      type: "update",
      kind: "runtimeContext",
      name: "git",
    }]);
    assert.deepEqual((await prompt.assemble()).runtimeContext, [
      { name: "git", order: 1, text: "Branch main." },
    ]);
    git.error(new Error("no repo"));
    await assert.rejects(
      prompt.assemble(),
      rejects(
        "PROVIDER_FAILED",
        'text source of runtime context "git"',
        "no repo",
      ),
    );
  });

  it('before the first value: section "", variable undefined, no tools', async () => {
    const prompt = registry();
    prompt.variable("cwd", new Subject<string>());
    prompt.section({ name: "note", order: 10, text: new Subject<string>() });
    prompt.tools(new Subject<ToolProviderResult>());
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.variables, { cwd: undefined });
    assert.ok("cwd" in assembly.variables);
    assert.deepEqual(
      assembly.sections.find((s) => s.name === "note")?.text,
      "",
    );
    assert.deepEqual(assembly.tools, []);
    assert.equal(renderPrompt(assembly), "");
  });

  it("explain() reads live values like assemble() and names their registrars", async () => {
    const prompt = registry("{{cwd}}");
    const plugin = prompt.fork({ label: "live" });
    plugin.variable("cwd", new BehaviorSubject("/a"));
    plugin.section({ name: "note", order: 1, text: new BehaviorSubject("hi") });
    plugin.tools(new BehaviorSubject(tool("read")));
    const explanation = await prompt.explain();
    assert.equal(explanation.prompt, "/a\n\nhi");
    assert.deepEqual(
      explanation.tools.map((origin) => [origin.name, origin.registrar]),
      [["read", "registry/live"]],
    );
    assert.equal(
      explanation.sections.find((origin) => origin.name === "note")?.registrar,
      "registry/live",
    );
  });

  it("a variable source may emit undefined: registered, no value", async () => {
    const prompt = registry();
    const value = new BehaviorSubject<string | undefined>("x");
    prompt.variable("maybe", value);
    value.next(undefined);
    assert.deepEqual((await prompt.assemble()).variables, { maybe: undefined });
  });

  it("completion keeps the last value", async () => {
    const prompt = registry();
    const value = new ReplaySubject<string>(1);
    prompt.variable("branch", value);
    value.next("main");
    value.complete();
    assert.equal((await prompt.assemble()).variables.branch, "main");
  });

  it("a nearer layer's live value shadows the global one", async () => {
    const prompt = registry();
    prompt.variable("model", new BehaviorSubject("global"));
    prompt.scope("agent").variable("model", new BehaviorSubject("scoped"));
    assert.equal((await prompt.assemble()).variables.model, "global");
    assert.equal(
      (await prompt.assemble({ scope: "agent" })).variables.model,
      "scoped",
    );
  });
});

describe("live values: subscription lifetime", () => {
  it("subscribes at registration and unsubscribes at disposal", async () => {
    const prompt = registry();
    const { source, counts } = counted(new Subject<string>());
    const dispose = prompt.variable("cwd", source);
    assert.deepEqual(counts, { subscribed: 1, unsubscribed: 0 });
    await prompt.assemble();
    await prompt.assemble();
    assert.deepEqual(counts, { subscribed: 1, unsubscribed: 0 });
    await dispose();
    assert.deepEqual(counts, { subscribed: 1, unsubscribed: 1 });
    assert.deepEqual((await prompt.assemble()).variables, {});
  });

  it("disposing the owning registrar unsubscribes", async () => {
    const prompt = registry();
    const plugin = prompt.fork();
    const { source, counts } = counted(new Subject<ToolProviderResult>());
    plugin.tools(source);
    await plugin.dispose();
    assert.equal(counts.unsubscribed, 1);
  });

  it("a failed registration does not subscribe", () => {
    const prompt = registry();
    prompt.variable("cwd", () => "/");
    const { source, counts } = counted(new Subject<string>());
    assert.throws(
      () => prompt.variable("cwd", source),
      rejects("DUPLICATE_VARIABLE"),
    );
    assert.deepEqual(counts, { subscribed: 0, unsubscribed: 0 });
  });

  it("a registration through a disposed registrar throws and does not subscribe", async () => {
    const prompt = registry();
    const plugin = prompt.fork();
    await plugin.dispose();
    const { source, counts } = counted(new Subject<string>());
    assert.throws(
      () => plugin.section({ name: "x", order: 1, text: source }),
      rejects("DISPOSED"),
    );
    assert.equal(counts.subscribed, 0);
  });
});

describe("live values: change events", () => {
  it("a synchronous value on subscription is the initial value: one register, no update", async () => {
    const prompt = registry();
    const seen = changes(prompt);
    prompt.variable("cwd", new BehaviorSubject("/a"));
    assert.deepEqual(seen, [{
      type: "register",
      kind: "variable",
      name: "cwd",
    }]);
    assert.equal((await prompt.assemble()).variables.cwd, "/a");
  });

  it("each later value emits update with kind, name and scope", () => {
    const prompt = registry();
    const seen = changes(prompt);
    const cwd = new Subject<string>();
    const text = new Subject<string>();
    const tools = new Subject<ToolProviderResult>();
    prompt.scope("agent").variable("cwd", cwd);
    prompt.section({ name: "note", order: 1, text });
    prompt.tools(tools);
    seen.length = 0;
    cwd.next("/a");
    cwd.next("/b");
    text.next("hi");
    tools.next(tool("t"));
    assert.deepEqual(seen, [
      { type: "update", kind: "variable", name: "cwd", scope: "agent" },
      { type: "update", kind: "variable", name: "cwd", scope: "agent" },
      { type: "update", kind: "section", name: "note" },
      { type: "update", kind: "tools" },
    ]);
  });

  it("no update after disposal, even from a source that ignores unsubscription", async () => {
    const prompt = registry();
    let late: ((value: string) => void) | undefined;
    // A hand-made source that keeps its emitter after teardown.
    const rude = {
      subscribe(observer: { next: (value: string) => void }) {
        late = (value) => observer.next(value);
        return { unsubscribe() {} };
      },
    };
    const source = new Observable<string>((subscriber) => {
      const inner = rude.subscribe(subscriber);
      return () => inner.unsubscribe();
    });
    const dispose = prompt.variable("cwd", source);
    late!("/a");
    await dispose();
    const seen = changes(prompt);
    late!("/b");
    assert.deepEqual(seen, []);
    assert.deepEqual((await prompt.assemble()).variables, {});
  });

  it("a value emitted from a change$ subscriber during its own registration is announced", async () => {
    const prompt = registry();
    const cwd = new Subject<string>();
    const seen: PromptChange[] = [];
    const subscription = prompt.change$.subscribe((change) => {
      seen.push(change);
      if (change.type === "register") cwd.next("/from-subscriber");
    });
    cleanups.push(() => subscription.unsubscribe());
    prompt.variable("cwd", cwd);
    assert.deepEqual(seen.map((c) => c.type), ["register", "update"]);
    assert.equal((await prompt.assemble()).variables.cwd, "/from-subscriber");
  });

  it("a registration disposed by a change$ subscriber during its own register announces no update, even for values that arrive meanwhile or later", async () => {
    const prompt = registry();
    const plugin = prompt.fork();
    // An interop source (not an RxJS Observable) that keeps its observer
    // after teardown: only the registration can ignore its later values.
    let emit: ((value: string) => void) | undefined;
    const rude = {
      lift() {
        return this;
      },
      subscribe(observer: { next: (value: string) => void }) {
        emit = (value) => observer.next(value);
        return { unsubscribe() {} };
      },
    };
    const seen: PromptChange[] = [];
    const subscription = prompt.change$.subscribe((change) => {
      seen.push(change);
      if (change.type !== "register") return;
      emit!("/meanwhile");
      void plugin.dispose();
    });
    cleanups.push(() => subscription.unsubscribe());
    plugin.variable("cwd", rude as unknown as Observable<string>);
    emit!("/later");
    await plugin.dispose();
    assert.deepEqual(seen, [
      { type: "register", kind: "variable", name: "cwd" },
      { type: "unregister", kind: "variable", name: "cwd" },
    ]);
    assert.deepEqual((await prompt.assemble()).variables, {});
  });
});

describe("live values: watch()", () => {
  it("each value re-renders the views", async () => {
    const prompt = registry("In {{cwd}}.");
    const cwd = new BehaviorSubject("/a");
    prompt.variable("cwd", cwd);
    const seen = views(prompt);
    await macrotask();
    cwd.next("/b");
    await macrotask();
    assert.deepEqual(prompts(seen), ["In /a.", "In /b."]);
  });

  it("values in one synchronous burst cause one view, the latest value winning", async () => {
    const prompt = registry("In {{cwd}}.");
    const cwd = new BehaviorSubject("/0");
    prompt.variable("cwd", cwd);
    const seen = views(prompt);
    await macrotask();
    for (let index = 1; index <= 10_000; index++) cwd.next(`/${index}`);
    await macrotask();
    assert.deepEqual(prompts(seen), ["In /0.", "In /10000."]);
  });

  it("a live value of a parent scope re-renders the views of its chain", async () => {
    const prompt = registry("{{cwd}}");
    prompt.bindScope("child", "parent");
    const cwd = new BehaviorSubject("/p");
    prompt.scope("parent").variable("cwd", cwd);
    const child = views(prompt, "child");
    await macrotask();
    cwd.next("/p2");
    await macrotask();
    assert.deepEqual(prompts(child), ["/p", "/p2"]);
  });

  it("a scope's live value re-renders that scope's views only", async () => {
    const prompt = registry("{{cwd}}");
    prompt.variable("cwd", () => "/global");
    const cwd = new BehaviorSubject("/mine");
    prompt.scope("mine").variable("cwd", cwd);
    const mine = views(prompt, "mine");
    const other = views(prompt, "other");
    await macrotask();
    cwd.next("/mine2");
    await macrotask();
    assert.deepEqual(prompts(mine), ["/mine", "/mine2"]);
    assert.deepEqual(prompts(other), ["/global"]);
  });
});

describe("live values: faults", () => {
  it("an errored source fails every assembly reading it with PROVIDER_FAILED until disposed", async () => {
    const prompt = registry();
    const cwd = new BehaviorSubject("/a");
    const dispose = prompt.scope("agent").variable("cwd", cwd);
    const boom = new Error("disk gone");
    cwd.error(boom);
    for (let attempt = 0; attempt < 2; attempt++) {
      await assert.rejects(
        prompt.assemble({ scope: "agent" }),
        (error: unknown) => {
          rejects("PROVIDER_FAILED", 'variable "cwd"', "disk gone")(error);
          assert.equal((error as SystemPromptError).cause, boom);
          return true;
        },
      );
    }
    // The global view does not read it.
    await prompt.assemble();
    await dispose();
    assert.deepEqual(
      (await prompt.assemble({ scope: "agent" })).variables,
      {},
    );
  });

  it("an error is announced and watch() shows it, then recovers on disposal", async () => {
    const prompt = registry();
    const text = new Subject<string>();
    const dispose = prompt.section({ name: "note", order: 1, text });
    const seen = views(prompt);
    const events = changes(prompt);
    await macrotask();
    text.error(new Error("boom"));
    await macrotask();
    assert.deepEqual(events, [{
      type: "update",
      kind: "section",
      name: "note",
    }]);
    assert.ok("error" in seen[1]);
    rejects("PROVIDER_FAILED", 'section "note"')(
      (seen[1] as { error: unknown }).error,
    );
    await dispose();
    await macrotask();
    assert.deepEqual(prompts(seen), ["", "<error>", ""]);
  });

  it("a source that errors during registration still registers; its assemblies reject", async () => {
    const prompt = registry();
    const seen = changes(prompt);
    const failing = new Observable<string>((subscriber) => {
      subscriber.error(new TypeError("no repo"));
    });
    const dispose = prompt.variable("branch", failing);
    assert.deepEqual(seen, [{
      type: "register",
      kind: "variable",
      name: "branch",
    }]);
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", 'variable "branch"', "no repo"),
    );
    await dispose();
    await prompt.assemble();
  });

  it("a tool source that errors names the tool source and its registrar", async () => {
    const prompt = registry();
    const source = new Subject<ToolProviderResult>();
    prompt.fork({ label: "mcp" }).tools(source);
    source.error(new Error("server gone"));
    await assert.rejects(
      prompt.assemble(),
      rejects(
        "PROVIDER_FAILED",
        "tool source",
        '"registry/mcp"',
        "server gone",
      ),
    );
  });

  it("a wrong type rejects with a typed error naming the registration", async () => {
    const prompt = registry();
    const variable = new Subject<unknown>();
    const text = new Subject<unknown>();
    const tools = new Subject<unknown>();
    prompt.variable("cwd", variable as Subject<string>);
    prompt.section({ name: "note", order: 1, text: text as Subject<string> });
    prompt.fork({ label: "tools" }).tools(tools as Subject<ToolProviderResult>);
    variable.next(42);
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", 'source of variable "cwd"', "number"),
    );
    variable.next("/ok");
    text.next({ not: "a string" });
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", 'text source of section "note"', "object"),
    );
    text.next("fine");
    tools.next({ schemas: "nope" });
    await assert.rejects(
      prompt.assemble(),
      rejects("INVALID_TOOL_SCHEMA", "tool source", '"registry/tools"'),
    );
    tools.next({ schemas: [{ name: "", description: "", parameters: {} }] });
    await assert.rejects(prompt.assemble(), rejects("INVALID_TOOL_SCHEMA"));
    tools.next(tool("ok"));
    assert.deepEqual((await prompt.assemble()).tools.map((t) => t.name), [
      "ok",
    ]);
  });

  it("a source that emits synchronously many times during its subscription keeps only the last", async () => {
    const prompt = registry();
    const seen = changes(prompt);
    const chatty = new Observable<string>((subscriber) => {
      for (let index = 0; index < 100; index++) subscriber.next(`v${index}`);
    });
    prompt.variable("chatty", chatty);
    assert.equal(seen.length, 1);
    assert.equal((await prompt.assemble()).variables.chatty, "v99");
  });

  it("a source that registers and disposes from inside its subscription leaves the registry consistent", async () => {
    const prompt = registry();
    const plugin = prompt.fork();
    const reentrant = new Observable<string>((subscriber) => {
      plugin.variable("side", () => "effect");
      subscriber.next("value");
    });
    plugin.variable("main", reentrant);
    assert.deepEqual((await prompt.assemble()).variables, {
      main: "value",
      side: "effect",
    });
    const disposing = prompt.fork();
    let unsubscribed = 0;
    const suicidal = new Observable<string>(() => {
      void disposing.dispose();
      return () => unsubscribed++;
    });
    assert.throws(
      () => disposing.variable("gone", suicidal),
      rejects("DISPOSED"),
    );
    assert.equal(unsubscribed, 1, "the failed registration unsubscribed");
    assert.deepEqual(Object.keys((await prompt.assemble()).variables), [
      "main",
      "side",
    ]);
  });

  it("a teardown that throws still removes the registration; the disposer rejects", async () => {
    const prompt = registry();
    const seen = changes(prompt);
    const source = new Observable<string>((subscriber) => {
      subscriber.next("v");
      return () => {
        throw new Error("teardown failed");
      };
    });
    const dispose = prompt.variable("flaky", source);
    await assert.rejects(dispose(), /teardown failed/);
    assert.deepEqual(seen.map((c) => c.type), ["register", "unregister"]);
    assert.deepEqual((await prompt.assemble()).variables, {});
    // The name is free again.
    prompt.variable("flaky", NEVER);
  });

  it("rejects an input that is neither a function nor an Observable", () => {
    const prompt = registry();
    assert.throws(
      () => prompt.variable("x", "text" as never),
      rejects(
        "INVALID_PROVIDER",
        'variable "x"',
        "a function or an Observable",
      ),
    );
    assert.throws(
      () => prompt.tools({ schemas: [] } as never),
      rejects("INVALID_PROVIDER", "a function or an Observable"),
    );
    assert.throws(
      () => prompt.section({ name: "s", order: 1, text: 3 as never }),
      rejects("INVALID_SECTION", "Observable"),
    );
  });

  it("rejects a revoked Proxy as a provider or a text: it is neither an Observable nor a function", async () => {
    const prompt = registry();
    const revoked = () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy as never;
    };
    assert.throws(
      () => prompt.variable("x", revoked()),
      rejects("INVALID_PROVIDER", 'variable "x"'),
    );
    assert.throws(
      () => prompt.tools(revoked()),
      rejects("INVALID_PROVIDER", "A tool provider"),
    );
    assert.throws(
      () => prompt.section({ name: "s", order: 1, text: revoked() }),
      rejects("INVALID_SECTION", '"s"'),
    );
    assert.deepEqual((await prompt.assemble()).variables, {});
  });
});

describe("invalidate() on registrars", () => {
  it("a scope registrar's invalidate re-renders that scope's views only", async () => {
    const prompt = registry("{{n}}");
    let n = 0;
    prompt.variable("n", () => String(n));
    const mine = views(prompt, "mine");
    const other = views(prompt, "other");
    const global = views(prompt);
    const events = changes(prompt);
    await macrotask();
    n = 1;
    prompt.scope("mine").invalidate();
    await macrotask();
    assert.deepEqual(events, [{ type: "invalidate", scope: "mine" }]);
    assert.deepEqual(prompts(mine), ["0", "1"]);
    assert.deepEqual(prompts(other), ["0"]);
    assert.deepEqual(prompts(global), ["0"]);
  });

  it("a global fork's invalidate re-renders every view", async () => {
    const prompt = registry("{{n}}");
    let n = 0;
    prompt.variable("n", () => String(n));
    const scoped = views(prompt, "mine");
    const global = views(prompt);
    const events = changes(prompt);
    await macrotask();
    n = 1;
    prompt.fork().invalidate();
    await macrotask();
    assert.deepEqual(events, [{ type: "invalidate" }]);
    assert.deepEqual(prompts(scoped), ["0", "1"]);
    assert.deepEqual(prompts(global), ["0", "1"]);
  });

  it("invalidate of a scope nobody watches or registered in only emits the change", () => {
    const prompt = registry();
    const events = changes(prompt);
    prompt.scope("empty").invalidate();
    assert.deepEqual(events, [{ type: "invalidate", scope: "empty" }]);
  });

  it("a disposed registrar's invalidate throws DISPOSED", async () => {
    const prompt = registry();
    const plugin = prompt.scope("x");
    await plugin.dispose();
    assert.throws(() => plugin.invalidate(), rejects("DISPOSED", "invalidate"));
  });
});
