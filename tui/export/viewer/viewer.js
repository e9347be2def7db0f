// locksim's run viewer: a cursor over the rows of one run, as the terminal UI
// moves it. The drawing comes in chunks of rows; only the chunks in view are in
// the page, so a run of any length opens at once.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("data").textContent);
  const $ = (id) => document.getElementById(id);
  const scroll = $("scroll"), chunksG = $("chunks"), cursorRect = $("cursor");
  const rows = D.top.length;
  const shown = new Map(); // chunk -> its <g>
  let cur = 0, timer = null;

  // The last index i of sorted a with a[i] <= x, or -1.
  function floorIndex(a, x, key) {
    let lo = 0, hi = a.length - 1, ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((key ? key(a[mid]) : a[mid]) <= x) { ans = mid; lo = mid + 1; } else { hi = mid - 1; }
    }
    return ans;
  }

  // Draw the chunks the scroll area shows (and one more each side); drop the rest.
  function draw() {
    const top = scroll.scrollTop, bottom = top + scroll.clientHeight;
    const first = Math.max(floorIndex(D.chunkTop, top) - 1, 0);
    const last = Math.min(floorIndex(D.chunkTop, bottom) + 1, D.chunks.length - 1);
    for (const [k, g] of shown) {
      if (k < first || k > last) { g.remove(); shown.delete(k); }
    }
    for (let k = first; k <= last; k++) {
      if (shown.has(k)) continue;
      const g = document.createElementNS("http://www.w3.org/2000/svg", "g");
      g.innerHTML = D.chunks[k];
      chunksG.appendChild(g); // under the cursor, which follows the chunks
      shown.set(k, g);
    }
  }

  // A time in seconds as locksim writes it: ms, µs or ns precision, as needed.
  function fmtMs(ms) {
    const ns = Math.round(ms * 1e6);
    return (ns / 1e9).toFixed(ns % 1e6 === 0 ? 3 : ns % 1e3 === 0 ? 6 : 9) + "s";
  }

  // An event's detail: [true time, wall, mono, text, observations...].
  function eventDetail(e) {
    let head = "t=" + fmtMs(e[0]);
    if (e[1] !== null) head += "  (its own clock: wall " + fmtMs(e[1]) + ", mono " + fmtMs(e[2]) + ")";
    return [head, e[3]].concat(e.slice(4).map((o) => "  = " + o)).join("\n");
  }

  // Move the cursor to row r and show what is there.
  function go(r, keepView) {
    if (rows === 0) return;
    cur = Math.max(0, Math.min(rows - 1, r));
    const top = D.top[cur], h = D.height[cur];
    cursorRect.setAttribute("y", top);
    cursorRect.setAttribute("height", h);
    if (!keepView) {
      const margin = Math.min(3 * 26, scroll.clientHeight / 4);
      if (top < scroll.scrollTop + margin) scroll.scrollTop = Math.max(0, top - margin);
      else if (top + h > scroll.scrollTop + scroll.clientHeight - margin) scroll.scrollTop = top + h - scroll.clientHeight + margin;
    }
    draw();
    const ev = D.event[cur];
    const vi = floorIndex(D.viol, cur, (v) => v.row);
    let detail;
    if (ev >= 0) {
      detail = eventDetail(D.events[ev]);
    } else {
      const v = D.viol[vi];
      detail = "◆ VIOLATION of " + v.invariant + " at t=" + fmtMs(v.at_ms) + "\n" + v.detail;
    }
    $("detail").textContent = detail;
    const ni = floorIndex(D.narr, cur, (n) => n.row);
    const narr = $("narration");
    narr.textContent = ni >= 0 ? D.narr[ni].text : "(no narration yet)";
    const so = new Set();
    for (let i = 0; i <= vi; i++) so.add(D.viol[i].invariant);
    $("so-far").textContent = so.size ? "so far: " + D.names.filter((n) => so.has(n)).join(", ") : "";
    $("where").textContent = "row " + (cur + 1) + " of " + rows + " · t=" + fmtMs(ev >= 0 ? D.events[ev][0] : D.viol[vi].at_ms);
    for (const a of document.querySelectorAll("a.jump")) a.classList.toggle("here", +a.dataset.row === cur);
    for (const s of document.querySelectorAll(".source span.here")) s.classList.remove("here");
    if (D.line[cur] > 0) {
      const l = $("L" + D.line[cur]);
      if (l) l.classList.add("here");
    }
  }

  // The next (or previous) of sorted rows after (before) the cursor.
  function seek(list, back) {
    if (back) {
      for (let i = list.length - 1; i >= 0; i--) if (list[i] < cur) return go(list[i]);
    } else {
      for (const r of list) if (r > cur) return go(r);
    }
  }
  const violRows = D.viol.map((v) => v.row), narrRows = D.narr.map((n) => n.row);
  const page = () => Math.max(1, Math.floor(scroll.clientHeight / 30));

  function play(on) {
    if (timer) { clearInterval(timer); timer = null; }
    if (on) {
      timer = setInterval(() => { if (cur >= rows - 1) play(false); else go(cur + 1); }, 1000 / +$("speed").value);
    }
    $("play").classList.toggle("on", !!timer);
    $("play").textContent = timer ? "❚❚ pause" : "▶ play";
  }

  const actions = {
    first: () => go(0), last: () => go(rows - 1), prev: () => go(cur - 1), next: () => go(cur + 1),
    prevViol: () => seek(violRows, true), nextViol: () => seek(violRows, false),
    prevFault: () => seek(D.fault, true), nextFault: () => seek(D.fault, false),
    prevStep: () => seek(narrRows, true), nextStep: () => seek(narrRows, false),
    play: () => play(!timer),
  };
  for (const id of Object.keys(actions)) $(id).addEventListener("click", () => { actions[id](); scroll.focus(); });
  $("speed").addEventListener("change", () => { if (timer) play(true); });

  const keys = {
    ArrowDown: "next", j: "next", ArrowUp: "prev", k: "prev", Home: "first", g: "first", End: "last", G: "last",
    n: "nextViol", N: "prevViol", f: "nextFault", F: "prevFault", s: "nextStep", S: "prevStep", " ": "play",
  };
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.target.tagName === "SELECT") return;
    if (ev.key === "PageDown") go(cur + page());
    else if (ev.key === "PageUp") go(cur - page());
    else if (keys[ev.key]) actions[keys[ev.key]]();
    else return;
    ev.preventDefault();
  });

  // A click on the drawing selects the row under it.
  $("body").addEventListener("click", (ev) => {
    const y = ev.clientY - $("body").getBoundingClientRect().top;
    go(Math.max(floorIndex(D.top, y), 0), true);
  });
  for (const a of document.querySelectorAll("a.jump")) {
    a.addEventListener("click", (ev) => { ev.preventDefault(); go(+a.dataset.row); });
  }
  scroll.addEventListener("scroll", () => { $("cols").scrollLeft = scroll.scrollLeft; draw(); }, { passive: true });
  window.addEventListener("resize", draw);
  go(0);
  scroll.focus();
})();
