"""The case browser as one self-contained HTML block: every case embedded as compact JSON, filtered, searched and
rendered in the page by a small script, so it works the same in a live notebook and in the exported HTML (no
kernel, no network, no widget manager).

The JSON interns every string once (a code sample shared by many feedback instances is stored once) and is embedded
gzip-compressed in base64, unpacked by the browser's own ``DecompressionStream`` (near-identical feedback texts of one
task compress to a few bytes each); a case's sections are turned into HTML only when it is opened. See
docs/reports.md for the size budget.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import uuid
from collections.abc import Sequence
from pathlib import Path

from tfr_helpers.pipeline.engine.seed_dirs import shown_run
from tfr_helpers.records import Results
from tfr_helpers.views.case_rows import CaseRow, case_rows
from tfr_helpers.views.progress import results_so_far

PAGE = 100
"""Matching cases listed at once (a "more" button lists the next ones)."""

SCRIPT = r"""
(function () {
  var root = document.getElementById("%(id)s");
  if (!root || root.dataset.ready) { return; }
  root.dataset.ready = "1";
  var status = root.querySelector(".tfr-status");
  if (typeof DecompressionStream === "undefined") {
    status.textContent = "This browser cannot unpack the embedded cases (it lacks DecompressionStream): open the " +
      "page in a current Chrome, Edge, Firefox or Safari.";
    return;
  }
  status.textContent = "unpacking the cases...";
  var packed = atob(document.getElementById("%(id)s-data").textContent.trim());
  var bytes = new Uint8Array(packed.length);
  for (var b = 0; b < packed.length; b++) { bytes[b] = packed.charCodeAt(b); }
  var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  new Response(stream).text().then(function (t) { start(JSON.parse(t)); }, function (e) {
    status.textContent = "The embedded cases could not be unpacked: " + e;
  });
  function start(data) {
    var S = data.s, rows = data.rows, page = %(page)d;
    var keys = ["model", "source", "benchmark", "kind"].concat(data.facets.map(function (i) { return S[i]; }));
    function facet(row, key) {
      var base = {model: 2, source: 3, benchmark: 4, kind: 1}[key];
      if (base !== undefined) { return S[row[base]]; }
      var pairs = row[7];
      for (var i = 0; i < pairs.length; i++) { if (S[pairs[i][0]] === key) { return S[pairs[i][1]]; } }
      return "(none)";
    }
    function text(row) {
      if (row.text === undefined) {
        var parts = [S[row[0]], S[row[5]], S[row[6]]];
        row[8].forEach(function (s) { parts.push(S[s[1]]); });
        row.text = parts.join("\n").toLowerCase();
      }
      return row.text;
    }
    var bar = root.querySelector(".tfr-filters"), selects = {}, values = {};
    keys.forEach(function (key) {
      var seen = {};
      rows.forEach(function (r) { seen[facet(r, key)] = 1; });
      values[key] = Object.keys(seen).sort();
      var label = document.createElement("label");
      label.textContent = key + " ";
      var select = document.createElement("select");
      select.className = "tfr-filter";
      select.dataset.key = key;
      ["(all)"].concat(values[key]).forEach(function (v) {
        var o = document.createElement("option"); o.value = v; o.textContent = v; select.appendChild(o);
      });
      select.addEventListener("change", function () { update(); });
      label.appendChild(select); bar.appendChild(label); selects[key] = select;
    });
    var search = root.querySelector(".tfr-search"), list = root.querySelector(".tfr-list");
    var more = root.querySelector(".tfr-more");
    var detail = root.querySelector(".tfr-detail"), matching = [], shown = 0, current = -1;
    search.addEventListener("input", function () { update(); });
    more.addEventListener("click", function () { listMore(); });
    function esc(s) {
      return s.replace(/[&<>"]/g, function (c) { return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]; });
    }
    function passes(r, skip, q) {
      for (var k in selects) {
        var v = selects[k].value;
        if (k !== skip && v !== "(all)" && facet(r, k) !== v) { return false; }
      }
      return !q || text(r).indexOf(q) >= 0;
    }
    function counts(q) {
      // each filter's options counted among the cases the other filters and the search let through
      keys.forEach(function (key) {
        var n = {}, total = 0;
        rows.forEach(function (r) { if (passes(r, key, q)) { n[facet(r, key)] = (n[facet(r, key)] || 0) + 1; total++; } });
        Array.prototype.forEach.call(selects[key].options, function (o) {
          var c = o.value === "(all)" ? total : (n[o.value] || 0);
          o.textContent = o.value + " (" + c + ")";
          o.disabled = c === 0 && o.value !== selects[key].value;
        });
      });
    }
    function update(keep) {
      var q = search.value.trim().toLowerCase();
      matching = rows.filter(function (r) { return passes(r, null, q); });
      counts(q);
      list.innerHTML = ""; shown = 0; listMore();
      status.textContent = matching.length + " matching of " + rows.length + " cases";
      var at = keep ? matching.indexOf(keep) : -1;
      if (matching.length) { open(at >= 0 ? at : 0); } else { detail.innerHTML = "<i>No case matches: widen a filter.</i>"; }
    }
    function listMore() {
      matching.slice(shown, shown + page).forEach(function (r, i) {
        var li = document.createElement("li"), at = shown + i;
        li.className = "tfr-case";
        li.textContent = (at + 1) + ". " + S[r[6]] + " · " + S[r[2]] + " · " + S[r[1]];
        li.addEventListener("click", function () { open(at); });
        list.appendChild(li);
      });
      shown = Math.min(matching.length, shown + page);
      more.style.display = shown < matching.length ? "" : "none";
      more.textContent = "list " + Math.min(page, matching.length - shown) + " more";
    }
    function anchor(r) { return "case-" + encodeURIComponent(S[r[0]]); }
    function open(at) {
      current = at;
      var r = matching[at];
      Array.prototype.forEach.call(list.children, function (li, i) { li.classList.toggle("tfr-current", i === at); });
      var nav = "<div class='tfr-nav'><button type='button' class='tfr-prev'" + (at > 0 ? "" : " disabled") +
        ">&larr; previous</button> case " + (at + 1) + " of " + matching.length +
        " <button type='button' class='tfr-next'" + (at + 1 < matching.length ? "" : " disabled") +
        ">next &rarr;</button> <a class='tfr-link' href='#" + anchor(r) + "'>link to this case</a></div>";
      var out = nav + "<div class='tfr-case-head'><b>" + esc(S[r[5]]) + "</b> · " + esc(S[r[2]]) + " (" +
        esc(S[r[3]]) + ") · " + esc(S[r[1]]) + " · id " + esc(S[r[0]]) + "<br>" + esc(S[r[6]]) + "</div>";
      r[8].forEach(function (s) {
        out += "<details open><summary><b>" + esc(S[s[0]]) + "</b></summary><pre class='tfr-" +
          (s[2] ? "code" : "text") + "'>" + esc(S[s[1]]) + "</pre></details>";
      });
      detail.innerHTML = out;
      detail.querySelector(".tfr-prev").addEventListener("click", function () { if (current > 0) { open(current - 1); } });
      detail.querySelector(".tfr-next").addEventListener("click", function () {
        if (current + 1 < matching.length) { open(current + 1); }
      });
    }
    function fromHash() {
      // a link #case-<id> opens that case, whatever the filters were
      var h = decodeURIComponent((window.location.hash || "").replace(/^#case-/, ""));
      if (!h || window.location.hash.indexOf("#case-") !== 0) { return false; }
      var r = rows.filter(function (x) { return S[x[0]] === h; })[0];
      if (!r) { return false; }
      for (var k in selects) { selects[k].value = "(all)"; }
      search.value = "";
      update(r);
      root.scrollIntoView();
      return true;
    }
    window.addEventListener("hashchange", fromHash);
    if (!fromHash()) { update(); }
  }
})();
"""

STYLE = """<style>
.tfr-cases { border: 1px solid #ccd; border-radius: 4px; padding: 8px; max-width: 100%; box-sizing: border-box; }
.tfr-cases .tfr-filters label { display: inline-block; margin: 2px 10px 2px 0; font-size: 13px; }
.tfr-cases select, .tfr-cases input { max-width: 320px; font-size: 13px; }
.tfr-cases .tfr-list { max-height: 260px; overflow-y: auto; margin: 4px 0; padding-left: 0; list-style: none;
  border: 1px solid #eee; font-size: 13px; }
.tfr-cases .tfr-case { cursor: pointer; padding: 2px 6px; overflow-wrap: anywhere; }
.tfr-cases .tfr-case:hover { background: #eef3fa; }
.tfr-cases pre { white-space: pre-wrap; overflow-wrap: break-word; font-size: 12px; background: #f6f8fa;
  padding: 6px; margin: 2px 0; max-width: 100%; box-sizing: border-box; }
.tfr-cases pre.tfr-code, .tfr-cases pre.tfr-text { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas,
  "DejaVu Sans Mono", "Liberation Mono", monospace !important; }
.tfr-cases .tfr-current { background: #dde8f6; }
.tfr-cases .tfr-nav { margin-bottom: 4px; font-size: 13px; }
.tfr-cases .tfr-detail { border-top: 1px solid #ccd; margin-top: 6px; padding-top: 6px; }
</style>"""


def encode(rows: Sequence[CaseRow]) -> str:
    """The rows as compact JSON with every string interned once (safe inside a ``<script>`` element)."""
    strings: dict[str, int] = {}

    def s(value: str) -> int:
        return strings.setdefault(value, len(strings))

    facet_names: dict[str, None] = {}
    encoded = []
    for row in rows:
        facet_names.update(dict.fromkeys(row.facets))
        encoded.append(
            [
                s(row.id),
                s(row.kind),
                s(row.model),
                s(row.source),
                s(row.benchmark),
                s(row.task_id),
                s(row.summary),
                [[s(k), s(v)] for k, v in row.facets.items()],
                [[s(sec.title), s(sec.text), int(sec.kind == "code")] for sec in row.sections],
            ]
        )
    payload = {"v": 1, "s": list(strings), "facets": [s(f) for f in facet_names], "rows": encoded}
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")


def pack(rows: Sequence[CaseRow]) -> str:
    """:func:`encode`'s JSON gzip-compressed (level 9, no timestamp: the same rows give the same bytes), in base64."""
    return base64.b64encode(gzip.compress(encode(rows).encode(), compresslevel=9, mtime=0)).decode("ascii")


def unpack(text: str) -> dict:
    """The JSON payload of :func:`pack`'s text (what the page's script reads)."""
    return json.loads(gzip.decompress(base64.b64decode(text.strip())))


def browser_html(rows: Sequence[CaseRow], title: str = "") -> str:
    """The whole browser: filters, search, the list of matches, the opened case, its data and its script."""
    element = f"tfr-cases-{uuid.uuid4().hex[:10]}"
    script = SCRIPT % {"id": element, "page": PAGE}
    return (
        f"{STYLE}<div class='tfr-cases' id='{element}'>"
        + (f"<div style='font-weight:bold'>{html.escape(title)}</div>" if title else "")
        + "<div class='tfr-filters'></div>"
        "<label style='font-size:13px'>search (task id, code, test, feedback, message) "
        "<input class='tfr-search' type='search' size='40'></label> <span class='tfr-status'></span>"
        "<ul class='tfr-list'></ul><button class='tfr-more' type='button'>more</button>"
        "<div class='tfr-detail'></div></div>"
        f"<script type='application/gzip+base64' id='{element}-data'>{pack(rows)}</script>"
        f"<script>{script}</script>"
    )


def real_first(rows: Sequence[CaseRow]) -> list[CaseRow]:
    """The rows with every real case (replayed or live) before the simulated ones, each group in its order: the
    browser opens on its first match, so on a real case whenever the run holds one."""
    return sorted(rows, key=lambda r: r.source == "simulated")


class OfflineCaseBrowser:
    """Every test-fail feedback of a run (every source), browsable with no kernel.

    Args:
        run_dir: A started run directory (a multi-seed run shows its first seed).
    """

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = shown_run(run_dir)
        self.results: Results = results_so_far(self.run_dir)
        self.rows = real_first(case_rows(self.results, self.run_dir))

    def html(self) -> str:
        """The browser as one HTML block."""
        return browser_html(self.rows, f"{len(self.rows):,} cases of run {self.results.run_name}")

    def _repr_html_(self) -> str:
        return self.html()
