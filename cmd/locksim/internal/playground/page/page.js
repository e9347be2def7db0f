// The playground: an editor, the catalogue, Run, the HTML viewer in a frame,
// explore and check in a worker, and a link that carries the scenario. The
// engine is locksim's command line compiled to WebAssembly (cmd/locksim-wasm),
// called with arguments as on a terminal: what the page says, locksim says.
(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const FILE = "scenario.scn", STORE = "locksim-playground-source";
  const status = (s) => ($("status").textContent = s);
  const src = $("src"), gutter = $("gutter");
  const state = { readyMs: -1, lastRunMs: -1, runs: 0 };
  window.playground = state;
  if (!("DecompressionStream" in globalThis) || !("WebAssembly" in globalThis) || !("CompressionStream" in globalThis)) {
    $("old-browser").hidden = false;
    status("this browser cannot run the engine");
    return;
  }
  let module = null, catalogue = [], marks = {}, worker = null, timer = null;

  // The engine: gzipped, base64, in this page (file:// forbids fetching it).
  async function engineBytes() {
    const b64 = $("engine").textContent.trim(), bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const s = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(s).arrayBuffer();
  }

  // --- The editor: a textarea and a gutter of line numbers with the marks.
  function drawGutter() {
    const n = src.value.split("\n").length;
    let h = "";
    for (let i = 1; i <= n; i++) h += marks[i] ? `<span class="${marks[i]}" data-line="${i}">${i}</span>\n` : i + "\n";
    gutter.innerHTML = h;
    gutter.scrollTop = src.scrollTop;
  }
  src.addEventListener("input", () => { marks = {}; drawGutter(); save(); });
  src.addEventListener("scroll", () => (gutter.scrollTop = src.scrollTop));
  src.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); }
  });
  function save() { try { localStorage.setItem(STORE, src.value); } catch (_) {} }
  function setText(text) { src.value = text; marks = {}; drawGutter(); save(); }
  function goToLine(line) {
    const lines = src.value.split("\n");
    let at = 0;
    for (let i = 0; i < line - 1 && i < lines.length; i++) at += lines[i].length + 1;
    src.focus();
    src.setSelectionRange(at, at + (lines[line - 1] || "").length);
  }

  // --- Problems: the command line's errors and warnings, at their line.
  function showProblems(stderr) {
    const list = $("problems");
    list.textContent = "";
    marks = {};
    let li = null;
    for (const line of stderr.split("\n")) {
      const m = /^locksim: (.+?):(\d+):(\d+): (warning: )?(.*)$/.exec(line);
      if (m || (line.startsWith("locksim: ") && !/^locksim: (explore|check) found/.test(line))) {
        li = document.createElement("li");
        li.textContent = line.replace(/^locksim: /, "");
        if (m) {
          const n = +m[2], warn = !!m[4];
          li.className = warn ? "warning" : "error";
          li.dataset.line = n;
          if (m[1] === FILE) { marks[n] = warn ? "warn" : marks[n] || "bad"; li.onclick = () => goToLine(n); }
        } else li.className = "error";
        list.appendChild(li);
      } else if (li && line.trim()) li.textContent += "\n" + line;
    }
    drawGutter();
  }

  // --- Run: the text (verdict, invariants, as run prints them), then the viewer.
  function runArgs() {
    const args = ["run", FILE];
    if ($("vs").value) args.push("--vs", $("vs").value);
    for (const w of $("with").value.split(";").map((s) => s.trim()).filter(Boolean)) args.push("--with", w);
    return args;
  }
  function run() {
    if (!module) return;
    const t0 = performance.now();
    fs.put("/work/" + FILE, src.value);
    save();
    const args = runArgs();
    const text = locksim.cli([...args, "--width", "100"]);
    showProblems(text.stderr);
    const v = $("verdict");
    if (text.code >= 2) {
      v.className = "";
      v.textContent = text.stderr.replace(/^locksim: /gm, "");
      status("not run: see the problems under the editor");
      return;
    }
    const out = text.stdout, at = out.search(/^Verdict: /m);
    v.textContent = at >= 0 ? out.slice(at) : out;
    const m = /^Verdict: (\w+)/m.exec(out);
    v.className = m ? "v-" + m[1] : "";
    const html = ["--format", "html"];
    if ($("walk").checked) html.push("--walk");
    if ($("quiet").checked) html.push("--quiet");
    const t1 = performance.now();
    const page = locksim.cli([...args, ...html]);
    const t2 = performance.now();
    const frame = $("viewer");
    frame.onload = () => {
      state.lastRunMs = performance.now() - t0;
      state.phases = { text: t1 - t0, html: t2 - t1, render: performance.now() - t2 }; // where a run's time goes
      state.runs++;
      status(`ran in ${Math.round(state.lastRunMs)} ms` + (m ? `: ${m[1]}` : ""));
      try { frame.contentWindow.focus(); } catch (_) {}
    };
    frame.srcdoc = page.stdout;
  }
  $("run").onclick = run;

  // "at the cursor": the viewer's cursor time, just after its row (as the
  // terminal's i does: the row is done when the fault hits).
  function viewerTime() { // ms, or null
    try {
      const w = $("viewer").contentDocument.getElementById("where").textContent;
      const m = /t=([0-9.]+)(ms|s)/.exec(w);
      if (m) return m[2] === "s" ? +m[1] * 1000 : +m[1];
    } catch (_) {}
    return null;
  }
  $("here").onclick = () => {
    const t = viewerTime();
    if (t === null) { status("run a scenario first: the cursor is the viewer's"); return; }
    const when = `at ${+(t + 0.001).toFixed(6)}ms `;
    const input = $("with"), parts = input.value.split(";").map((s) => s.trim()).filter(Boolean);
    parts.push(when);
    input.value = parts.join("; ");
    input.focus();
  };

  // --- The catalogue, grouped as the terminal's browser groups it.
  function fillCatalogue() {
    catalogue = JSON.parse(locksim.catalogue());
    const groups = {};
    for (const sel of [$("pick"), $("vs")]) {
      groups[sel.id] = {};
      for (const s of catalogue) {
        let g = groups[sel.id][s.protocol];
        if (!g) { g = groups[sel.id][s.protocol] = document.createElement("optgroup"); g.label = s.protocol; sel.appendChild(g); }
        const o = document.createElement("option");
        o.value = s.id;
        o.textContent = sel.id === "pick" ? `${s.id} · ${s.summary}`.slice(0, 110) : s.id;
        o.title = s.summary;
        g.appendChild(o);
      }
    }
    for (const p of JSON.parse(locksim.presets())) {
      const o = document.createElement("option");
      o.value = p;
      o.textContent = "preset " + p;
      $("target").appendChild(o);
    }
  }
  $("pick").onchange = () => {
    const s = catalogue.find((c) => c.id === $("pick").value);
    if (!s) return;
    exercise = null;
    $("exercise").value = "";
    $("exercise-box").hidden = true;
    setText(s.source);
    $("with").value = "";
    run();
  };

  // --- Explore and check, in a worker made from this page's own text.
  function newWorker() {
    const code = $("engine-js").textContent + "\n" + $("worker-js").textContent;
    const w = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
    w.postMessage({ module });
    return w;
  }
  function stopSearch(msg) {
    if (worker) worker.terminate();
    worker = null;
    clearInterval(timer);
    $("start").disabled = false;
    $("stop").disabled = true;
    if (msg) $("progress").textContent = msg;
  }
  $("stop").onclick = () => stopSearch("stopped");
  $("start").onclick = () => {
    if (!module) return;
    stopSearch();
    const mode = $("mode").value, target = $("target").value, budget = $("budget").value.trim();
    state.searchFound = null;
    const args = [mode, target, "--out", "found"];
    if (budget) args.push("--budget", budget);
    if (mode === "check") args.push("--max-faults", $("maxfaults").value.trim() || "1");
    const out = $("search-out");
    out.textContent = "$ locksim " + args.join(" ") + "\n";
    const t0 = performance.now();
    worker = newWorker();
    $("start").disabled = true;
    $("stop").disabled = false;
    timer = setInterval(() => {
      const s = (performance.now() - t0) / 1000;
      $("progress").textContent = `${mode} running: ${s.toFixed(1)} s` + (budget ? ` of a ${budget} budget` : " (no budget: until the bound is exhausted)");
    }, 100);
    worker.onmessage = (e) => {
      const m = e.data;
      if (m.ready) worker.postMessage({ args, files: { ["/work/" + FILE]: src.value } });
      if (m.out) { out.textContent += m.out; out.scrollTop = out.scrollHeight; }
      if (m.done) {
        const files = Object.keys(m.found);
        stopSearch(`${mode} done in ${((performance.now() - t0) / 1000).toFixed(1)} s, exit ${m.code}` +
          (files.length ? `: the shortest counterexample is in the editor (${files[0].replace("/work/", "")})` : ": nothing found"));
        state.searchCode = m.code;
        state.searchFound = files;
        if (files.length) { setText(m.found[files[0]]); $("vs").value = ""; $("with").value = ""; run(); }
      }
    };
    worker.onerror = (e) => stopSearch("the worker failed: " + e.message);
  };

  // --- Exercises (docs/exercises.md): the exercise in the editor, the answer
  // beside it, graded by locksim grade; the viewer shows the run with it.
  let exercises = [], exercise = null, hintsShown = 0;
  function fillExercises() {
    exercises = JSON.parse(locksim.exercises());
    for (const e of exercises) {
      const o = document.createElement("option");
      o.value = e.id;
      o.textContent = e.id;
      $("exercise").appendChild(o);
    }
  }
  function showHints() {
    const info = [exercise.goal, "budget: " + exercise.budget];
    if (exercise.proved) info.push("No answer may exist: if you think so, answer claim none.");
    exercise.hints.slice(0, hintsShown).forEach((h, i) => info.push(`hint ${i + 1}: ${h}`));
    $("ex-info").textContent = info.join("\n");
    $("hint-count").textContent = hintsShown < exercise.hints.length ? `${exercise.hints.length - hintsShown} more` : "no more hints";
  }
  function openExercise(id, answer) {
    exercise = exercises.find((e) => e.id === id) || null;
    $("exercise-box").hidden = !exercise;
    if (!exercise) return;
    hintsShown = 0;
    $("pick").value = "";
    $("vs").value = "";
    $("with").value = "";
    $("answer").value = answer || "";
    $("grade").textContent = "";
    setText(exercise.source);
    showHints();
    run();
  }
  $("exercise").onchange = () => openExercise($("exercise").value);
  $("hint-btn").onclick = () => { if (exercise) { hintsShown = Math.min(hintsShown + 1, exercise.hints.length); showHints(); } };
  function grade() {
    if (!exercise || !module) return;
    const file = exercise.id + ".scn";
    fs.put("/work/" + file, src.value);
    fs.put("/work/answer.scn", $("answer").value);
    const r = locksim.cli(["grade", file, "answer.scn"]);
    const g = $("grade");
    g.textContent = (r.stdout + r.stderr).replace(/^locksim: /gm, "").trim();
    g.className = r.code === 0 ? "passed" : "failed";
    state.grade = { code: r.code, text: g.textContent };
    const faults = $("answer").value.split("\n").map((l) => l.trim()).filter((l) => /^(at|when) /.test(l));
    if (r.code < 2) { $("with").value = faults.join("; "); run(); }
  }
  $("grade-btn").onclick = grade;
  $("answer").addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); grade(); } });
  $("here-answer").onclick = () => {
    const t = viewerTime();
    if (t === null) { status("run the exercise first: the cursor is the viewer's"); return; }
    const a = $("answer");
    a.value = (a.value.trim() ? a.value.trimEnd() + "\n" : "") + `at ${+(t + 0.001).toFixed(6)}ms `;
    a.focus();
  };

  // --- Share: the text, compressed, in the link's fragment; nothing stored.
  async function pack(text) {
    const s = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
    const b = new Uint8Array(await new Response(s).arrayBuffer());
    let bin = "";
    for (const x of b) bin += String.fromCharCode(x);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  async function unpack(code) {
    const bin = atob(code.replace(/-/g, "+").replace(/_/g, "/"));
    const b = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) b[i] = bin.charCodeAt(i);
    return new Response(new Blob([b]).stream().pipeThrough(new DecompressionStream("deflate-raw"))).text();
  }
  $("share").onclick = async () => {
    const params = exercise ? new URLSearchParams({ ex: exercise.id, a: await pack($("answer").value) })
      : new URLSearchParams({ s: await pack(src.value) });
    if ($("vs").value) params.set("vs", $("vs").value);
    if ($("with").value.trim()) params.set("with", $("with").value.trim());
    const link = location.href.split("#")[0] + "#" + params.toString();
    history.replaceState(null, "", link);
    const box = $("share-link");
    box.hidden = false;
    box.value = link;
    box.select();
    try { await navigator.clipboard.writeText(link); status("link copied"); } catch (_) { status("the link is in the box above"); }
  };
  $("download").onclick = () => {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([src.value], { type: "text/plain" }));
    a.download = ($("pick").value || "scenario") + ".scn";
    a.click();
  };

  // --- Start: the engine, then the text from the link, the last session, or the catalogue.
  (async () => {
    try {
      module = await WebAssembly.compile(await engineBytes());
      const go = new Go();
      const ready = new Promise((r) => (globalThis.locksimReady = r));
      go.run(await WebAssembly.instantiate(module, go.importObject));
      await ready;
    } catch (e) {
      status("the engine did not start: " + e);
      return;
    }
    $("version").textContent = locksim.version;
    fillCatalogue();
    fillExercises();
    const params = new URLSearchParams(location.hash.slice(1));
    if (params.get("ex")) {
      let answer = "";
      try { answer = params.get("a") ? await unpack(params.get("a")) : ""; } catch (e) { status("the link's answer could not be read: " + e); }
      $("exercise").value = params.get("ex");
      state.readyMs = performance.now();
      document.body.dataset.ready = "1";
      openExercise(params.get("ex"), answer);
      if (answer.trim()) grade();
      return;
    }
    if (params.get("s")) {
      try { setText(await unpack(params.get("s"))); } catch (e) { status("the link's scenario could not be read: " + e); }
      if (params.get("vs")) $("vs").value = params.get("vs");
      if (params.get("with")) $("with").value = params.get("with");
    } else {
      let kept = null;
      try { kept = localStorage.getItem(STORE); } catch (_) {}
      setText(kept || (catalogue.find((c) => c.id === "redis-del-after-expiry") || catalogue[0]).source);
    }
    state.readyMs = performance.now();
    document.body.dataset.ready = "1";
    status(`ready in ${Math.round(state.readyMs)} ms`);
    run(); // the editor's scenario, shown at once (a link's, the last session's, or the catalogue's)
  })();
})();
