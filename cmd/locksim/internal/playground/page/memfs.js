// An in-memory file system for Go's js/wasm port (syscall/fs_js.go calls the
// global fs, with Node's callback API). The playground's engine is locksim's
// command line, which reads scenario files and writes what explore and check
// find; here they are files in memory: the page writes the editor's text to
// /work/scenario.scn and reads /work/found/*.scn back. Nothing leaves the page.
// stdout and stderr (fd 1, 2: the Go runtime's own messages) go to the console.
(() => {
  "use strict";
  const enc = new TextEncoder(), dec = new TextDecoder();
  const nodes = new Map([["/", { dir: true, mtime: Date.now() }]]);
  const fds = new Map();
  let nextFd = 10;
  const fail = (code) => { const e = new Error(code); e.code = code; return e; };
  const norm = (p) => { // relative to /work, the working directory
    p = String(p);
    const out = p.startsWith("/") ? [] : ["work"];
    for (const s of p.split("/")) {
      if (!s || s === ".") continue;
      if (s === "..") out.pop(); else out.push(s);
    }
    return "/" + out.join("/");
  };
  const parent = (p) => p.slice(0, p.lastIndexOf("/")) || "/";
  const C = { O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_EXCL: 128, O_TRUNC: 512, O_APPEND: 1024, O_DIRECTORY: 65536 };
  const stat = (n) => {
    const t = n.mtime;
    return { dev: 0, ino: 0, mode: n.dir ? 0o40755 : 0o100644, nlink: 1, uid: 0, gid: 0, rdev: 0,
      size: n.dir ? 0 : n.data.length, blksize: 4096, blocks: 0, atimeMs: t, mtimeMs: t, ctimeMs: t,
      isDirectory: () => !!n.dir };
  };
  const lookup = (p) => { const n = nodes.get(norm(p)); if (!n) throw fail("ENOENT"); return n; };
  const fdNode = (fd) => { const f = fds.get(fd); if (!f) throw fail("EBADF"); return f; };
  // call runs op and answers Node-style: callback(err, result).
  const call = (op) => (...args) => {
    const cb = args.pop();
    let res;
    try { res = op(...args); } catch (e) { cb(e.code ? e : fail("EIO")); return; }
    cb(null, res);
  };
  let lineBuf = "";
  const fs = {
    constants: C,
    writeSync(fd, buf) {
      if (fd === 1 || fd === 2) {
        lineBuf += dec.decode(buf);
        const nl = lineBuf.lastIndexOf("\n");
        if (nl !== -1) { (fd === 2 ? console.warn : console.log)(lineBuf.slice(0, nl)); lineBuf = lineBuf.slice(nl + 1); }
        return buf.length;
      }
      return fs._write(fd, buf, 0, buf.length, null);
    },
    _write(fd, buf, off, len, pos) {
      const f = fdNode(fd), n = f.node;
      if (n.dir) throw fail("EISDIR");
      let at = pos === null || pos === undefined ? (f.append ? n.data.length : f.pos) : pos;
      const end = at + len;
      if (end > n.data.length) { const d = new Uint8Array(Math.max(end, n.data.length * 2)); d.set(n.data); n.data = d.subarray(0, end); }
      n.data.set(buf.subarray(off, off + len), at);
      n.mtime = Date.now();
      if (pos === null || pos === undefined) f.pos = end;
      return len;
    },
    write: call((fd, buf, off, len, pos) => fs._write(fd, buf, off, len, pos)),
    read: call((fd, buf, off, len, pos) => {
      const f = fdNode(fd), n = f.node;
      if (n.dir) throw fail("EISDIR");
      const at = pos === null || pos === undefined ? f.pos : pos;
      const k = Math.max(0, Math.min(len, n.data.length - at));
      buf.set(n.data.subarray(at, at + k), off);
      if (pos === null || pos === undefined) f.pos = at + k;
      return k;
    }),
    open: call((path, flags, mode) => {
      const p = norm(path);
      let n = nodes.get(p);
      if (n && (flags & C.O_CREAT) && (flags & C.O_EXCL)) throw fail("EEXIST");
      if (!n) {
        if (!(flags & C.O_CREAT)) throw fail("ENOENT");
        const dir = nodes.get(parent(p));
        if (!dir) throw fail("ENOENT");
        if (!dir.dir) throw fail("ENOTDIR");
        n = { data: new Uint8Array(0), mtime: Date.now() };
        nodes.set(p, n);
      } else if (!n.dir && (flags & C.O_TRUNC)) {
        n.data = new Uint8Array(0);
      }
      const fd = nextFd++;
      fds.set(fd, { node: n, path: p, pos: 0, append: !!(flags & C.O_APPEND) });
      return fd;
    }),
    close: call((fd) => { fdNode(fd); fds.delete(fd); }),
    fstat: call((fd) => stat(fdNode(fd).node)),
    stat: call((path) => stat(lookup(path))),
    lstat: call((path) => stat(lookup(path))),
    mkdir: call((path, perm) => {
      const p = norm(path);
      if (nodes.has(p)) throw fail("EEXIST");
      const dir = nodes.get(parent(p));
      if (!dir) throw fail("ENOENT");
      if (!dir.dir) throw fail("ENOTDIR");
      nodes.set(p, { dir: true, mtime: Date.now() });
    }),
    readdir: call((path) => {
      const p = norm(path), n = lookup(p);
      if (!n.dir) throw fail("ENOTDIR");
      const pre = p === "/" ? "/" : p + "/";
      const names = [];
      for (const k of nodes.keys()) if (k !== p && k.startsWith(pre) && !k.slice(pre.length).includes("/")) names.push(k.slice(pre.length));
      return names.sort();
    }),
    unlink: call((path) => { const p = norm(path), n = lookup(p); if (n.dir) throw fail("EISDIR"); nodes.delete(p); }),
    rmdir: call((path) => {
      const p = norm(path), n = lookup(p);
      if (!n.dir) throw fail("ENOTDIR");
      for (const k of nodes.keys()) if (k.startsWith(p + "/")) throw fail("ENOTEMPTY");
      nodes.delete(p);
    }),
    rename: call((from, to) => {
      const a = norm(from), b = norm(to), n = lookup(a);
      if (!nodes.get(parent(b))) throw fail("ENOENT");
      nodes.delete(a); nodes.set(b, n);
      for (const f of fds.values()) if (f.path === a) f.path = b;
    }),
    truncate: call((path, len) => { const n = lookup(path); n.data = n.data.slice(0, len); }),
    ftruncate: call((fd, len) => { const n = fdNode(fd).node; n.data = n.data.slice(0, len); }),
    fsync: call((fd) => { fdNode(fd); }),
    chmod: call((path) => { lookup(path); }),
    fchmod: call((fd) => { fdNode(fd); }),
    chown: call((path) => { lookup(path); }),
    fchown: call((fd) => { fdNode(fd); }),
    lchown: call((path) => { lookup(path); }),
    utimes: call((path) => { lookup(path); }),
    link: call(() => { throw fail("ENOSYS"); }),
    symlink: call(() => { throw fail("ENOSYS"); }),
    readlink: call(() => { throw fail("EINVAL"); }),
    // The page's side: put a file, read one back, list a directory.
    put(path, text) {
      const p = norm(path), parts = p.split("/").slice(1, -1);
      let d = "";
      for (const s of parts) { d += "/" + s; if (!nodes.has(d)) nodes.set(d, { dir: true, mtime: Date.now() }); }
      nodes.set(p, { data: enc.encode(text), mtime: Date.now() });
    },
    get(path) { const n = nodes.get(norm(path)); return n && !n.dir ? dec.decode(n.data) : null; },
    list(path) {
      const p = norm(path), pre = p === "/" ? "/" : p + "/";
      return [...nodes.keys()].filter((k) => k.startsWith(pre) && !nodes.get(k).dir).sort();
    },
    clear(path) { const p = norm(path); for (const k of [...nodes.keys()]) if (k === p || k.startsWith(p + "/")) nodes.delete(k); },
  };
  globalThis.fs = fs;
  // Go asks the process for its working directory (relative paths) and ids.
  globalThis.process = globalThis.process || {
    getuid: () => -1, getgid: () => -1, geteuid: () => -1, getegid: () => -1,
    getgroups() { throw fail("ENOSYS"); }, pid: -1, ppid: -1, umask() { throw fail("ENOSYS"); },
    cwd: () => "/work", chdir() { throw fail("ENOSYS"); },
  };
  fs.put("/work/.keep", "");
})();
