// locksim's run viewer: a cursor over the lines of one run, or of two runs lined
// up on true time, as the terminal UI moves it. The drawing comes in chunks of
// lines; only the chunks in view are in the page, so a run of any length opens
// at once. A view is every row, or the quiet one (background traffic folded).
// The walk follows the story as the terminal UI's does: one stop at a time,
// its question first with nothing below the stop drawn, then the stop's rows
// and narration; the verdict waits for the end.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("data").textContent);
  const $ = (id) => document.getElementById(id);
  const scroll = $("scroll"), body = $("body"), colsvg = $("colsvg");
  const chunksG = $("chunks"), lifeG = $("life"), cursorRect = $("cursor");
  const lanes = D.runs.length, compare = lanes > 1;
  const shown = new Map(); // chunk -> its <g>
  let V = null, cur = 0, timer = null, scale = 1;
  // The walk: on or off; reveal (the rows below the cursor hidden, on with
  // the walk); the stop whose question is asked, its answer not yet shown
  // (-1: none); whether a beat has been shown (before that, the first stop
  // may be the cursor's own row).
  let walk = false, reveal = false, asking = -1, walked = false;
  const title = document.title, verdictless = title.replace(/: [A-Z /]+ · locksim$/, " · locksim");

  // The last i in [0, n) with key(i) <= x (keys ascending), or -1.
  function floorBy(n, x, key) {
    let lo = 0, hi = n - 1, ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (key(mid) <= x) { ans = mid; lo = mid + 1; } else { hi = mid - 1; }
    }
    return ans;
  }
  const floorIn = (a, x, f) => floorBy(a.length, x, f ? (i) => f(a[i]) : (i) => a[i]);

  // Lane l's row at or before line i (-1: none yet); alone, a line is a row.
  const rowAt = (l, i) => (V.lanes[l].at ? V.lanes[l].at[i] : i);
  // A row's place across views (the layout's Key): an event's index times
  // 65536, a violation's own key; -1 before the first row.
  function keyOf(l, r) {
    if (r < 0) return -1;
    const L = V.lanes[l], ev = L.event[r];
    return ev >= 0 ? ev * 65536 : L.viol[floorIn(L.viol, r, (v) => v.row)].key;
  }
  const lineKey = (i) => keyOf(0, rowAt(0, i));

  // Two runs side by side are narrowed to the window, down to 70%.
  function fit() {
    scale = compare ? Math.min(1, Math.max(0.7, (scroll.clientWidth - 2) / D.width)) : 1;
    for (const [svg, h] of [[body, V.total], [colsvg, D.headH]]) {
      svg.setAttribute("viewBox", "0 0 " + D.width + " " + h);
      svg.setAttribute("width", D.width * scale);
      svg.setAttribute("height", h * scale);
    }
  }

  // Draw the chunks the scroll area shows (and one more each side); drop the rest.
  function draw() {
    const top = scroll.scrollTop / scale, bottom = top + scroll.clientHeight / scale;
    const first = Math.max(floorIn(V.chunkTop, top) - 1, 0);
    const last = Math.min(floorIn(V.chunkTop, bottom) + 1, V.chunks.length - 1);
    for (const [k, g] of shown) {
      if (k < first || k > last) { g.remove(); shown.delete(k); }
    }
    for (let k = first; k <= last; k++) {
      if (shown.has(k)) continue;
      const g = document.createElementNS("http://www.w3.org/2000/svg", "g");
      g.innerHTML = V.chunks[k];
      chunksG.appendChild(g); // under the cursor, which follows the chunks
      shown.set(k, g);
    }
  }

  // Show view v (0: every row, 1: quiet), keeping the cursor on the same moment.
  function setView(v) {
    const key = V ? lineKey(cur) : -1;
    V = D.views[v];
    for (const g of shown.values()) g.remove();
    shown.clear();
    lifeG.innerHTML = V.life;
    fit();
    let i = key < 0 ? 0 : Math.max(floorBy(V.top.length, key, lineKey), 0);
    while (i > 0 && lineKey(i - 1) === lineKey(i)) i--;
    $("quiet").classList.toggle("on", V.name === "quiet");
    go(i);
  }

  // A time in seconds as locksim writes it: ms, µs or ns precision, as needed.
  function fmtMs(ms) {
    const ns = Math.round(ms * 1e6);
    return (ns / 1e9).toFixed(ns % 1e6 === 0 ? 3 : ns % 1e3 === 0 ? 6 : 9) + "s";
  }

  // An event's detail: [true time, wall, mono, text, what its step reported...].
  function eventDetail(e) {
    let head = "t=" + fmtMs(e[0]);
    if (e[1] !== null) head += "  (its own clock: wall " + fmtMs(e[1]) + ", mono " + fmtMs(e[2]) + ")";
    return [head, e[3]].concat(e.slice(4).map((o) => "  = " + o)).join("\n");
  }

  // The beat that row r belongs to (null before the first stop).
  function beatOf(r) {
    const beats = V.lanes[0].beats || [];
    const i = floorIn(beats, r, (b) => b.stop);
    return i >= 0 ? beats[i] : null;
  }

  // The narration of lane l at row r: in the walk, the question while it is
  // asked, then the beat's narration (or, for a fault or violation nothing
  // narrates, what it is); otherwise the narration in force. null: none.
  function narrationAt(l, r) {
    const L = V.lanes[l];
    const ni = floorIn(L.narr, r, (n) => n.row);
    const inForce = ni >= 0 ? L.narr[ni].text : "";
    if (walk && !compare) {
      if (asking >= 0 && asking === r) {
        const b = beatOf(asking);
        return { question: b ? b.q : "" };
      }
      const b = beatOf(r);
      if (b) {
        if (b.narr) return { text: b.narr };
        if (!inForce) return { text: b.text };
      }
    }
    return inForce ? { text: inForce } : null;
  }

  // Show lane l's row r: its detail, the narration in force, the badge, the
  // scenario's line behind it. Returns the row's true time (-1: no row yet).
  function showLane(l, r) {
    const L = V.lanes[l], run = D.runs[l];
    let detail = "nothing yet at this time", at = -1;
    const vi = floorIn(L.viol, r, (v) => v.row);
    if (r >= 0 && L.event[r] >= 0) {
      const e = run.events[L.event[r]];
      detail = eventDetail(e);
      at = e[0];
    } else if (r >= 0) {
      const v = L.viol[vi];
      detail = "◆ VIOLATION of " + v.invariant + " at t=" + fmtMs(v.at_ms) + "\n" + v.detail;
      at = v.at_ms;
    }
    $("detail-" + l).textContent = detail;
    const said = narrationAt(l, r), narr = $("narration-" + l);
    narr.classList.toggle("dim", !said);
    narr.classList.toggle("question", !!(said && said.question !== undefined));
    if (said && said.question !== undefined) {
      narr.textContent = "";
      const q = document.createElement("div"), hint = document.createElement("div");
      q.className = "ask";
      q.textContent = "? " + said.question;
      hint.className = "hint";
      hint.textContent = "space: the answer";
      narr.append(q, hint);
    } else {
      narr.textContent = said ? said.text : L.first < 0 || r < L.first ? run.summary : "(no narration for this step)";
    }
    const so = new Set();
    for (let i = 0; i <= vi; i++) so.add(L.viol[i].invariant);
    $("so-far-" + l).textContent = so.size ? "so far: " + run.names.filter((n) => so.has(n)).join(", ") : "";
    for (const s of document.querySelectorAll("#source-" + l + " span.here")) s.classList.remove("here");
    if (r >= 0 && L.src[r] > 0) {
      const s = $("s" + l + "L" + L.src[r]);
      if (s) s.classList.add("here");
    }
    return at;
  }

  // Hide what the cursor has not reached yet, while revealing: the rows
  // below it, and the verdict (in the header, the invariants, the source's
  // expectations and the page's title) until the last row.
  function paintReveal() {
    const n = V.top.length, last = cur >= n - 1;
    // The veil stops 3 units short of the cursor's bottom: the label of the
    // next row's message sits just above that row, and must not peek out.
    $("veil").setAttribute("height", reveal && !last ? V.top[cur] + V.height[cur] - 3 : V.total);
    const hiding = reveal && !last;
    document.body.classList.toggle("hiding", hiding);
    document.title = hiding ? verdictless : title;
    $("reveal").classList.toggle("on", reveal);
  }

  // Move the cursor to line i and show what each run has there.
  function go(i, keepView) {
    const n = V.top.length;
    if (n === 0) return;
    cur = Math.max(0, Math.min(n - 1, i));
    if (asking !== cur) asking = -1; // the cursor left the stop: the question is no longer asked
    const top = V.top[cur], h = V.height[cur];
    cursorRect.setAttribute("y", top);
    cursorRect.setAttribute("height", h);
    paintReveal();
    if (!keepView) {
      const margin = Math.min(3 * 26, scroll.clientHeight / 4);
      const y = top * scale, yh = (top + h) * scale;
      if (y < scroll.scrollTop + margin) scroll.scrollTop = Math.max(0, y - margin);
      else if (yh > scroll.scrollTop + scroll.clientHeight - margin) scroll.scrollTop = yh - scroll.clientHeight + margin;
    }
    draw();
    let at = -1;
    for (let l = 0; l < lanes; l++) at = Math.max(at, showLane(l, rowAt(l, cur)));
    let where = (compare ? "line " : "row ") + (cur + 1) + " of " + n + " · t=" + fmtMs(at);
    if (compare) {
      const d = V.diff.indexOf(cur);
      where += d >= 0 ? " · difference " + (d + 1) + " of " + V.diff.length : V.diff.length ? "" : " · the runs do not differ";
    }
    $("where").textContent = where;
    playLabel();
    for (const a of document.querySelectorAll("a.jump")) {
      const v = V.lanes[+a.dataset.lane].viol[+a.dataset.viol];
      a.classList.toggle("here", !!v && v.line === cur);
    }
  }

  // The next (or previous) of sorted lines after (before) the cursor.
  function seek(list, back) {
    if (back) {
      for (let i = list.length - 1; i >= 0; i--) if (list[i] < cur) return go(list[i]);
    } else {
      for (const r of list) if (r > cur) return go(r);
    }
  }
  const page = () => Math.max(1, Math.floor(scroll.clientHeight / (30 * scale)));

  function play(on) {
    if (timer) { clearInterval(timer); timer = null; }
    if (on) {
      timer = setInterval(() => { if (cur >= V.top.length - 1) play(false); else go(cur + 1); }, 1000 / +$("speed").value);
    }
    playLabel();
  }

  // The play button says what space does: play or pause, or in the walk,
  // the next stop or the answer to the question asked.
  function playLabel() {
    const b = $("play");
    b.classList.toggle("on", !!timer);
    if (walk) {
      b.textContent = asking >= 0 ? "▶ the answer" : "▶ next stop";
      b.title = "the walk: the next stop, or the answer to the question asked (space)";
    } else {
      b.textContent = timer ? "❚❚ pause" : "▶ play";
      b.title = "play or pause (space)";
    }
  }

  // The walk goes on: at a stop whose question is asked, it shows the answer
  // (the beat's rows and narration); otherwise it goes to the next stop, to
  // ask its question or, when it has none, to show its beat at once. After
  // the last beat, the end of the run.
  function nextStop() {
    if (asking >= 0) {
      const b = beatOf(asking);
      asking = -1;
      go(b ? b.end : cur);
      return;
    }
    const from = walked ? cur : -1;
    walked = true;
    const next = V.stops.find((s) => s > from);
    if (next === undefined) return go(V.top.length - 1);
    const b = beatOf(next);
    if (b && b.q) {
      asking = next;
      return go(next);
    }
    go(b ? b.end : next);
  }

  function setWalk(on) {
    walk = on && !compare;
    asking = -1;
    walked = false;
    play(false);
    reveal = walk;
    document.body.classList.toggle("walking", walk);
    if ($("walk")) $("walk").classList.toggle("on", walk);
    go(cur, true);
  }

  function setReveal(on) {
    reveal = on;
    go(cur, true);
  }

  function help(open) {
    $("helpbox").hidden = !open;
    $("help").classList.toggle("on", open);
  }

  const actions = {
    first: () => go(0), last: () => go(V.top.length - 1), prev: () => go(cur - 1), next: () => go(cur + 1),
    prevViol: () => seek(V.viol, true), nextViol: () => seek(V.viol, false),
    prevFault: () => seek(V.fault, true), nextFault: () => seek(V.fault, false),
    prevStep: () => seek(V.stops, true), nextStep: () => seek(V.stops, false),
    prevDiff: () => seek(V.diff, true), nextDiff: () => seek(V.diff, false),
    quiet: () => { if (D.views.length > 1) setView(V === D.views[0] ? 1 : 0); },
    play: () => (walk ? nextStop() : play(!timer)),
    walk: () => setWalk(!walk),
    reveal: () => setReveal(!reveal),
    help: () => help($("helpbox").hidden),
  };
  for (const id of Object.keys(actions)) {
    const b = $(id);
    if (b) b.addEventListener("click", () => { actions[id](); scroll.focus(); });
  }
  $("quiet").disabled = D.views.length < 2;
  $("speed").addEventListener("change", () => { if (timer) play(true); });

  const keys = {
    ArrowDown: "next", j: "next", ArrowUp: "prev", k: "prev", Home: "first", g: "first", End: "last", G: "last",
    n: "nextViol", N: "prevViol", f: "nextFault", F: "prevFault", s: "nextStep", S: "prevStep", " ": "play", b: "quiet",
    r: "reveal", "?": "help",
  };
  if (!compare) keys.w = "walk";
  if (compare) { keys.d = "nextDiff"; keys.D = "prevDiff"; }
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.target.tagName === "SELECT") return;
    if (!$("helpbox").hidden && (ev.key === "Escape" || ev.key === "?")) help(false); // the help takes esc and ? first
    else if (ev.key === "PageDown") go(cur + page());
    else if (ev.key === "PageUp") go(cur - page());
    else if (keys[ev.key]) actions[keys[ev.key]]();
    else return;
    ev.preventDefault();
  });

  // A click on the drawing selects the line under it.
  body.addEventListener("click", (ev) => {
    const y = (ev.clientY - body.getBoundingClientRect().top) / scale;
    go(Math.max(floorIn(V.top, y), 0), true);
  });
  for (const a of document.querySelectorAll("a.jump")) {
    a.addEventListener("click", (ev) => {
      ev.preventDefault();
      const v = V.lanes[+a.dataset.lane].viol[+a.dataset.viol];
      if (v) go(v.line);
    });
  }
  scroll.addEventListener("scroll", () => { $("cols").scrollLeft = scroll.scrollLeft; draw(); }, { passive: true });
  window.addEventListener("resize", () => { fit(); draw(); });
  setView(D.start);
  if (D.walk) setWalk(true);
  scroll.focus();
})();
