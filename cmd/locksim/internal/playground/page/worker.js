// The playground's worker: explore and check run here, so the page never
// freezes. It is made from a Blob URL (file:// forbids a worker from a file),
// with memfs.js and wasm_exec.js before this text; the page hands it the
// compiled engine with postMessage.
(() => {
  "use strict";
  let ready = null;
  onmessage = async (e) => {
    const m = e.data;
    if (m.module) {
      const go = new Go();
      ready = new Promise((r) => (globalThis.locksimReady = r));
      const inst = await WebAssembly.instantiate(m.module, go.importObject);
      go.run(inst);
      await ready;
      postMessage({ ready: true });
      return;
    }
    if (m.args) {
      await ready;
      fs.clear("/work/found");
      for (const [p, t] of Object.entries(m.files || {})) fs.put(p, t);
      const r = locksim.cli(m.args, (s) => postMessage({ out: s }), (s) => postMessage({ out: s }));
      const found = {};
      for (const p of fs.list("/work/found")) found[p] = fs.get(p);
      postMessage({ done: true, code: r.code, found });
    }
  };
})();
