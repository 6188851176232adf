/**
 * The inspector page: one HTML document, its style and its script, served
 * as they are (no external assets, no build step). The script reads the
 * state from `/events` (server-sent events; `/state` once when they are not
 * available) and draws it with DOM calls only (`textContent`, never HTML
 * from the state). Stability is shown by a word and a letter as well as a
 * colour, a cache marker by a word and a sign; every region has a heading,
 * every table a caption, every bar a link with its figures in words.
 *
 * @module
 */

/** The page (`/`). */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>rxprompt inspect</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/page.css">
<script src="/page.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to the views</a>
<header>
<h1>rxprompt inspect</h1>
<p id="config">Loading…</p>
<p id="timeout"></p>
<p id="status" role="status" aria-live="polite"></p>
</header>
<div id="problems"></div>
<nav id="views-nav" aria-label="Views"></nav>
<section id="legend" aria-labelledby="legend-h">
<h2 id="legend-h">Legend</h2>
<ul class="legend">
<li><span class="badge stable"><span class="letter" aria-hidden="true">S</span> stable</span> changes with the deployment</li>
<li><span class="badge agent"><span class="letter" aria-hidden="true">A</span> agent</span> changes with the agent (scope)</li>
<li><span class="badge volatile"><span class="letter" aria-hidden="true">V</span> volatile</span> may change any step</li>
<li><span class="marker">◆ cache marker</span> the provider caches the prefix up to here (Anthropic <code>cache_control</code>)</li>
<li><span class="swatch cached" aria-hidden="true"></span> cached, <span class="swatch written" aria-hidden="true"></span> written, <span class="swatch uncached" aria-hidden="true"></span> uncached input tokens (request chart)</li>
</ul>
</section>
<main id="main" tabindex="-1"></main>
<noscript><p>The page needs JavaScript; <code>rxprompt inspect CONFIG --json</code> prints the same tables.</p></noscript>
</body>
</html>
`;

/** The page's style (`/page.css`). */
export const PAGE_CSS = `
:root { color-scheme: light; --stable: #1b7f3b; --agent: #1f5fbf; --volatile: #b3261e;
  --cached: #2e7d32; --written: #b26a00; --uncached: #757575; --ink: #1d1d1f; --muted: #555; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, sans-serif; color: var(--ink); margin: 0 auto; max-width: 72rem; padding: 0 1rem 3rem; }
h1 { font-size: 1.5rem; margin: 1rem 0 .25rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .5rem; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05rem; margin: 1.25rem 0 .4rem; }
a:focus-visible, button:focus-visible, summary:focus-visible, [tabindex]:focus-visible { outline: 3px solid #0b57d0; outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: .5rem; background: #fff; padding: .25rem .5rem; }
#status, #timeout { color: var(--muted); margin: 0; }
.problem { border: 2px solid var(--volatile); background: #fdecea; padding: .5rem .75rem; margin: .75rem 0; }
.problem strong { color: var(--volatile); }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .5rem; }
nav a { display: inline-block; padding: .2rem .6rem; border: 1px solid #999; border-radius: 1rem; text-decoration: none; color: var(--ink); }
.legend { list-style: none; padding: 0; margin: 0; display: grid; gap: .25rem; }
.badge { display: inline-block; border-radius: .25rem; padding: 0 .4rem; font-size: .85rem; font-weight: 600; color: #fff; white-space: nowrap; }
.badge .letter { display: inline-block; background: rgba(255,255,255,.25); border-radius: .2rem; padding: 0 .2rem; margin-right: .15rem; }
.badge.stable { background: var(--stable); }
.badge.agent { background: var(--agent); }
.badge.volatile { background: var(--volatile); background-image: repeating-linear-gradient(135deg, transparent 0 6px, rgba(255,255,255,.18) 6px 9px); }
.marker { font-weight: 600; color: #6a1b9a; white-space: nowrap; }
.block { border: 1px solid #bbb; border-left-width: .5rem; border-radius: .25rem; margin: .75rem 0; padding: .4rem .75rem; }
.block.stable { border-left-color: var(--stable); }
.block.agent { border-left-color: var(--agent); }
.block.volatile { border-left-color: var(--volatile); border-left-style: dashed; }
.block > h4 { margin: .1rem 0 .4rem; font-size: .95rem; display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
table { border-collapse: collapse; width: 100%; margin: .25rem 0 .5rem; font-size: .9rem; }
caption { text-align: left; font-weight: 600; padding: .2rem 0; }
th, td { text-align: left; padding: .2rem .4rem; border-bottom: 1px solid #e3e3e3; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.inactive td { color: var(--muted); }
details pre { white-space: pre-wrap; background: #f6f6f6; padding: .4rem; margin: .25rem 0; max-height: 16rem; overflow: auto; }
.none { color: var(--muted); font-style: italic; }
.totals { font-variant-numeric: tabular-nums; }
.chart { display: flex; align-items: flex-end; gap: .35rem; height: 14rem; padding: .5rem; border: 1px solid #ccc; border-radius: .25rem; overflow-x: auto; list-style: none; margin: .5rem 0; }
.chart li { display: flex; flex-direction: column; align-items: center; height: 100%; justify-content: flex-end; min-width: 2.2rem; }
.bar { display: flex; flex-direction: column-reverse; width: 2rem; text-decoration: none; border: 1px solid #333; background: #fff; }
.bar .part { display: block; width: 100%; }
.bar .cached { background: var(--cached); }
.bar .written { background: var(--written); background-image: repeating-linear-gradient(45deg, transparent 0 4px, rgba(255,255,255,.35) 4px 7px); }
.bar .uncached { background: var(--uncached); background-image: radial-gradient(rgba(255,255,255,.5) 1px, transparent 1.5px); background-size: 5px 5px; }
.bar.miss { border: 2px solid var(--volatile); }
.chart .label { font-size: .8rem; margin-top: .2rem; }
.chart .label .miss-sign { color: var(--volatile); font-weight: 700; }
.swatch { display: inline-block; width: .9rem; height: .9rem; vertical-align: middle; border: 1px solid #333; }
.swatch.cached { background: var(--cached); }
.swatch.written { background: var(--written); background-image: repeating-linear-gradient(45deg, transparent 0 4px, rgba(255,255,255,.35) 4px 7px); }
.swatch.uncached { background: var(--uncached); }
.step { border-top: 1px dashed #bbb; padding-top: .25rem; }
.step:target { background: #fff8e1; }
`;

/** The page's script (`/page.js`). */
export const PAGE_JS = String.raw`"use strict";
(function () {
  var STABILITY = { stable: "S", agent: "A", volatile: "V" };

  function h(tag, attributes) {
    var element = document.createElement(tag);
    var key;
    for (key in attributes || {}) {
      if (attributes[key] === undefined || attributes[key] === null || attributes[key] === false) continue;
      if (key === "text") element.textContent = String(attributes[key]);
      else if (key === "className") element.className = attributes[key];
      // Through the CSSOM: the page's policy allows no inline style attribute.
      else if (key === "height") element.style.height = attributes[key];
      else element.setAttribute(key, attributes[key] === true ? "" : String(attributes[key]));
    }
    for (var i = 2; i < arguments.length; i++) append(element, arguments[i]);
    return element;
  }

  function append(parent, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(parent, c); }); return; }
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }

  function plural(count, noun) { return count + " " + noun + (count === 1 ? "" : "s"); }

  function badge(stability) {
    return h("span", { className: "badge " + stability, "data-stability": stability },
      h("span", { className: "letter", "aria-hidden": "true", text: STABILITY[stability] || "?" }),
      " " + stability);
  }

  function marker(on) { return on ? h("span", { className: "marker", text: "◆ cache marker" }) : ""; }

  function table(caption, headers, rows, options) {
    var numeric = (options && options.numeric) || [];
    return h("table", options && options.attributes,
      h("caption", { text: caption }),
      h("thead", null, h("tr", null, headers.map(function (title, i) {
        return h("th", { scope: "col", className: numeric.indexOf(i) >= 0 ? "num" : undefined, text: title });
      }))),
      h("tbody", null, rows));
  }

  function cell(content, numeric) {
    return h("td", { className: numeric ? "num" : undefined }, typeof content === "number" ? String(content) : content);
  }

  function none(text) { return h("p", { className: "none", text: text }); }

  function textDetails(name, text, key) {
    if (text === "") return h("span", { className: "none", text: "(renders empty)" });
    return h("details", { id: key }, h("summary", { text: "text of " + name }), h("pre", { text: text }));
  }

  function sectionRow(section) {
    return h("tr", {
      "data-section": section.name,
      "data-stability": section.stability,
      "data-contributor": section.contributor.label,
      "data-tokens": section.tokens
    },
      cell(section.order, true),
      h("th", { scope: "row", text: section.name }),
      cell([badge(section.stability), " ", h("span", { className: "reason", text: "(" + section.stabilityReason + ")" })]),
      cell(section.contributor.label),
      cell(section.tokens, true),
      cell(section.characters, true),
      cell(section.breakpoint ? "yes" : "no"),
      cell(textDetails(section.name, section.text, section.key)));
  }

  function blockView(view, block) {
    var label = "Block " + block.index + ", " + block.stability + (block.marker ? ", cache marker" : ", no marker") +
      ", " + plural(block.tokens, "token");
    return h("article", {
      className: "block " + block.stability,
      "aria-label": label,
      "data-block": block.index,
      "data-stability": block.stability,
      "data-marker": block.marker ? "yes" : "no"
    },
      h("h4", null, "Block " + block.index, badge(block.stability), marker(block.marker),
        h("span", { text: plural(block.tokens, "token") })),
      block.sections.length === 0 ? none("no sections") : table(
        "Sections of block " + block.index + " (" + view.title + ")",
        ["order", "name", "stability", "contributor", "tokens", "characters", "breakpoint", "text"],
        block.sections.map(function (section) {
          return sectionRow(Object.assign({ key: view.id + "-section-" + section.name }, section));
        }),
        { numeric: [0, 4, 5] }));
  }

  function toolsTable(view) {
    if (view.tools.length === 0) return none("No tools.");
    return table("Tools of " + view.title + " (wire order: before the system prompt)",
      ["name", "stability", "contributor", "tokens", "active", "marker"],
      view.tools.map(function (tool) {
        return h("tr", {
          "data-tool": tool.name,
          "data-stability": tool.stability,
          "data-contributor": tool.contributor.label,
          "data-active": tool.active ? "yes" : "no",
          className: tool.active ? undefined : "inactive"
        },
          h("th", { scope: "row", text: tool.name }),
          cell([badge(tool.stability), " ", h("span", { className: "reason", text: "(" + tool.stabilityReason + ")" })]),
          cell(tool.contributor.label),
          cell(tool.tokens, true),
          cell(tool.active ? "yes" : "no: inactive, left out by " + tool.inactiveBy),
          cell(marker(tool.marker) || "no"));
      }),
      { numeric: [3] });
  }

  function deferredToolsSection(view) {
    if (!view.deferredTools) return [];
    var id = view.id + "-deferredTools";
    return h("section", { "aria-labelledby": id + "-h", "data-part": "deferredTools" },
      h("h3", { id: id + "-h", text: "Deferred tools (" + view.deferredTools.length +
        "): listed when the model finds them; not in the totals" }),
      table("Deferred tools of " + view.title,
        ["name", "stability", "contributor", "tokens", "active"],
        view.deferredTools.map(function (tool) {
          return h("tr", {
            "data-deferred-tool": tool.name,
            "data-stability": tool.stability,
            "data-contributor": tool.contributor.label,
            "data-active": tool.active ? "yes" : "no",
            className: tool.active ? undefined : "inactive"
          },
            h("th", { scope: "row", text: tool.name }),
            cell([badge(tool.stability), " ", h("span", { className: "reason", text: "(" + tool.stabilityReason + ")" })]),
            cell(tool.contributor.label),
            cell(tool.tokens, true),
            cell(tool.active ? "yes" : "no: inactive, left out by " + tool.inactiveBy));
        }),
        { numeric: [3] }));
  }

  function listSection(view, key, title, empty, headers, row) {
    var items = view[key];
    var id = view.id + "-" + key;
    return h("section", { "aria-labelledby": id + "-h", "data-part": key },
      h("h3", { id: id + "-h", text: title + " (" + items.length + ")" }),
      items.length === 0 ? none(empty) : table(title + " of " + view.title, headers, items.map(row)));
  }

  function scopeSection(view) {
    var totals = view.totals;
    return h("section", { id: view.id, className: "view", "aria-labelledby": view.id + "-h", "data-scope": view.name === null ? "" : view.name, tabindex: "-1" },
      h("h2", { id: view.id + "-h", text: "The assembly of " + view.title }),
      view.error ? h("p", { className: "problem", role: "alert" }, h("strong", { text: "Assembly failed: " }), view.error) : [
        h("p", { className: "totals", text: plural(totals.promptTokens, "token") + " of system prompt in " +
          plural(view.blocks.length, "block") + ", " + plural(totals.toolTokens, "token") + " of tools (" +
          view.tools.length + "), " + plural(totals.runtimeContextTokens, "token") + " of runtime context (o200k_base)" }),
        h("section", { "aria-labelledby": view.id + "-tools-h", "data-part": "tools" },
          h("h3", { id: view.id + "-tools-h", text: "Tools (" + view.tools.length + ")" }),
          toolsTable(view)),
        deferredToolsSection(view),
        h("section", { "aria-labelledby": view.id + "-blocks-h", "data-part": "blocks" },
          h("h3", { id: view.id + "-blocks-h", text: "System prompt blocks (" + view.blocks.length + ")" }),
          view.blocks.length === 0 ? none("The system prompt is empty.") : view.blocks.map(function (block) { return blockView(view, block); })),
        listSection(view, "runtimeContext", "Runtime context", "No runtime context.",
          ["order", "name", "contributor", "tokens", "text"], function (entry) {
            return h("tr", { "data-runtime": entry.name }, cell(entry.order, true), h("th", { scope: "row", text: entry.name }),
              cell(entry.contributor.label), cell(entry.tokens, true),
              cell(textDetails(entry.name, entry.text, view.id + "-runtime-" + entry.name)));
          }),
        listSection(view, "variables", "Variables", "No variables.",
          ["name", "stability", "contributor", "value"], function (variable) {
            return h("tr", { "data-variable": variable.name, "data-stability": variable.stability },
              h("th", { scope: "row", text: variable.name }),
              cell([badge(variable.stability), " ", h("span", { className: "reason", text: "(" + variable.stabilityReason + ")" })]),
              cell(variable.contributor.label), cell(variable.defined ? "defined" : "undefined here"));
          }),
        listSection(view, "shadowed", "Shadowed", "Nothing is shadowed.",
          ["kind", "name", "hidden registration", "hidden by"], function (entry) {
            return h("tr", { "data-shadowed": entry.name }, cell(entry.kind), h("th", { scope: "row", text: entry.name }),
              cell(entry.contributor.label), cell(entry.by));
          }),
        listSection(view, "pruned", "Pruned by the token budget", "Nothing was pruned.",
          ["name", "stability", "tokens", "priority", "why"], function (entry) {
            return h("tr", { "data-pruned": entry.name }, h("th", { scope: "row", text: entry.name }),
              cell(badge(entry.stability)), cell(entry.tokens, true), cell(entry.priority, true), cell(entry.reason));
          })
      ]);
  }

  function chartName(chart) { return chart.source.provider || chart.source.form; }
  function stepId(chart, request) { return "step-" + chartName(chart) + "-" + request.index; }

  function share(part, whole) { return whole === 0 ? "n/a" : (part / whole * 100).toFixed(1) + "%"; }

  // A recording's compaction rows: the summarizing request (and how much of
  // its input the cache served), the rewrite after the swap, the provider's own.
  function compactionText(request) {
    if (request.compaction === "summary") {
      return "the summarizing request of a compaction, " + share(request.cachedTokens, request.inputTokens) + " of its input cached";
    }
    if (request.compaction === "swap") return "the first request after a compaction was swapped in";
    if (request.compaction === "inside") return "compacted by the provider inside the request";
    return "";
  }

  function verdictText(request) {
    var compaction = compactionText(request);
    var told = request.inline ? "; " + request.inline : "";
    var v = request.verdict;
    var miss = !v ? "no miss"
      : "miss (" + v.kind + ")" + (v.firstMiss ? ": first miss " + v.firstMiss.block + ", " + v.firstMiss.reason : "");
    return (compaction ? compaction + "; " : "") + miss + told;
  }

  function compactionsLine(chart) {
    var c = chart.compactions;
    if (!c) return "";
    return h("p", { className: "compactions", "data-compactions": "", text: "Compactions: " + plural(c.summaries, "summarizing request") +
      ", " + c.cachedTokens + " of their " + c.inputTokens + " input tokens cached (" + share(c.cachedTokens, c.inputTokens) + "); " +
      c.inside + " inside a request; " + plural(c.swaps, "rewrite") + " after one (verdict compaction)." });
  }

  function diffItems(diff) {
    if (diff.against === null) return [h("li", { text: "The first request: nothing before it." })];
    if (diff.error) return [h("li", { text: "Cannot compare: " + diff.error })];
    var items = [];
    function list(what, names) { if (names.length > 0) items.push(h("li", { text: what + ": " + names.join(", ") })); }
    list("sections added", diff.sections.added);
    list("sections removed", diff.sections.removed);
    list("sections changed", diff.sections.changed);
    list("tools added", diff.tools.added);
    list("tools removed", diff.tools.removed);
    list("tools changed", diff.tools.changed);
    if (diff.tools.reordered) items.push(h("li", { text: "tools reordered" }));
    if (diff.runtimeContextChanged) items.push(h("li", { text: "runtime context changed (after the cached prefix)" }));
    if (diff.brokenBy) items.push(h("li", { text: "the prompt cache breaks at " + diff.brokenBy }));
    if (items.length === 0) items.push(h("li", { text: "nothing in the system prompt or the tools changed" }));
    return items;
  }

  function chartSection(chart) {
    var provider = chartName(chart);
    var max = Math.max.apply(null, [1].concat(chart.requests.map(function (r) { return r.inputTokens; })));
    var id = "chart-" + provider;
    var t = chart.totals;
    var where = chart.source.kind === "recording" ? "reported in " + chart.source.file : "estimated by simulateCache";
    return h("section", { id: id, className: "chart-section", "aria-labelledby": id + "-h", "data-provider": provider },
      h("h3", { id: id + "-h", text: provider + ": " + plural(chart.requests.length, "request") + " (" + where + ")" }),
      h("p", { className: "totals", "data-totals": "", text: "In all: " + t.inputTokens + " input tokens: " + t.cachedTokens + " cached, " +
        t.writtenTokens + " written, " + t.uncachedTokens + " uncached." }),
      compactionsLine(chart),
      h("ol", { className: "chart", "aria-label": "Requests to " + provider + ", one bar each; a bar links to its step" },
        chart.requests.map(function (request) {
          var label = "Request " + request.index + " (thread " + request.thread + "): " + request.cachedTokens + " cached, " +
            request.writtenTokens + " written, " + request.uncachedTokens + " uncached of " + request.inputTokens +
            " input tokens; " + verdictText(request);
          var scale = function (n) { return (n / max * 12) + "rem"; };
          return h("li", null,
            h("a", {
              className: "bar" + (request.verdict ? " miss" : ""),
              id: "bar-" + provider + "-" + request.index,
              href: "#" + stepId(chart, request),
              "aria-label": label,
              title: label,
              "data-request": request.index,
              "data-compaction": request.compaction,
              "data-cached": request.cachedTokens,
              "data-written": request.writtenTokens,
              "data-uncached": request.uncachedTokens
            },
              h("span", { className: "part cached", height: scale(request.cachedTokens) }),
              h("span", { className: "part written", height: scale(request.writtenTokens) }),
              h("span", { className: "part uncached", height: scale(request.uncachedTokens) })),
            h("span", { className: "label", "aria-hidden": "true" }, String(request.index),
              request.verdict ? h("span", { className: "miss-sign", text: " ✕" }) : ""));
        })),
      table("Requests to " + provider + " (the bars' figures)",
        ["request", "thread", "input", "cached", "written", "uncached", "verdict"],
        chart.requests.map(function (request) {
          return h("tr", null, h("th", { scope: "row" }, h("a", { href: "#" + stepId(chart, request), text: String(request.index) })),
            cell(request.thread), cell(request.inputTokens, true), cell(request.cachedTokens, true),
            cell(request.writtenTokens, true), cell(request.uncachedTokens, true), cell(verdictText(request)));
        }),
        { numeric: [2, 3, 4, 5] }),
      h("h4", { text: "Each step's diff (" + provider + ")" }),
      chart.requests.map(function (request) {
        var v = request.verdict;
        return h("section", { id: stepId(chart, request), className: "step", tabindex: "-1", "aria-labelledby": stepId(chart, request) + "-h" },
          h("h5", { id: stepId(chart, request) + "-h", text: "Request " + request.index + " (thread " + request.thread + ")" +
            (request.diff.against === null ? "" : ", against request " + request.diff.against) }),
          h("p", { text: request.cachedTokens + " cached, " + request.writtenTokens + " written, " + request.uncachedTokens + " uncached; " + verdictText(request) }),
          v && v.changed ? h("p", { text: "Changed: " + v.changed }) : "",
          v && v.providerReason ? h("p", { text: "The provider's reason: " + v.providerReason }) : "",
          h("ul", null, diffItems(request.diff)),
          h("p", null, h("a", { href: "#bar-" + provider + "-" + request.index, text: "Back to the bar" })));
      }));
  }

  function render(state) {
    // A live update keeps the reader's place: focus, scroll and open texts.
    var focused = document.activeElement && document.activeElement.id;
    var scrolled = window.scrollY;
    var open = Array.prototype.map.call(document.querySelectorAll("details[open]"), function (d) { return d.id; });
    document.getElementById("config").textContent = "Config " + state.config +
      (state.session ? ", session " + state.session : "") +
      (state.recording ? ", recording " + state.recording : "");
    document.getElementById("timeout").textContent = "Each assembly" +
      (state.session ? " and each session step" : "") + " is bounded by --timeout " + state.timeoutMs / 1000 + " s.";
    var charted = state.session || state.recording;
    var problems = document.getElementById("problems");
    problems.replaceChildren();
    if (state.status === "config-error") {
      problems.appendChild(h("p", { className: "problem", role: "alert", id: "config-error" },
        h("strong", { text: "Config error: " }), state.error, " (the page updates when the file is saved)"));
    }
    state.chartErrors.forEach(function (error) {
      problems.appendChild(h("p", { className: "problem", role: "alert" }, h("strong", { text: state.recording ? "Recording: " : "Session: " }), error));
    });
    var nav = document.getElementById("views-nav");
    nav.replaceChildren(h("ul", null, state.scopes.map(function (view) {
      return h("li", null, h("a", { href: "#" + view.id, id: "nav-" + view.id, text: view.title }));
    }), charted ? h("li", null, h("a", { href: "#requests", id: "nav-requests", text: "Requests" })) : ""));
    var main = document.getElementById("main");
    main.replaceChildren();
    append(main, [
      state.scopes.map(scopeSection),
      charted ? h("section", { id: "requests", "aria-labelledby": "requests-h", tabindex: "-1" },
        h("h2", { id: "requests-h", text: "Requests of the " + (state.recording ? "recording" : "session") + " (cached, written, uncached input tokens)" }),
        state.charting ? none(state.recording ? "Reading the recording…" : "Running the session…") :
          state.charts.length === 0 ? none("No chart.") : state.charts.map(chartSection)) : ""]);
    document.body.setAttribute("data-sequence", String(state.sequence));
    document.body.setAttribute("data-charting", state.charting ? "yes" : "no");
    document.body.setAttribute("data-status", state.status);
    document.getElementById("status").textContent = state.status === "loading" ? "Loading the config…" :
      "Update " + state.sequence + " at " + new Date().toLocaleTimeString() + (state.status === "config-error" ? ": config error" : "");
    open.forEach(function (id) {
      var details = id && document.getElementById(id);
      if (details) details.open = true;
    });
    if (focused) {
      var again = document.getElementById(focused);
      if (again) again.focus({ preventScroll: true });
    }
    window.scrollTo(0, scrolled);
    if (location.hash && !render.scrolled) {
      var target = document.getElementById(location.hash.slice(1));
      if (target) { target.scrollIntoView(); render.scrolled = true; }
    }
  }

  function start() {
    if (typeof EventSource === "function") {
      var source = new EventSource("/events");
      source.addEventListener("state", function (event) { render(JSON.parse(event.data)); });
      source.onerror = function () {
        document.getElementById("status").textContent = "Disconnected from rxprompt inspect; retrying…";
      };
    } else {
      fetch("/state").then(function (response) { return response.json(); }).then(render);
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
`;
